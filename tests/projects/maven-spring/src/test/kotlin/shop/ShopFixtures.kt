package shop

import org.junit.jupiter.api.Assertions

object ShopFixtures {
    val teaAndCake = arrayOf("tea", "cake")

    fun assertTotal(expected: Long, actual: Long) = Assertions.assertEquals(expected, actual)
}
