package shop

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Disabled
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Nested
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource

class CartTest {
    private fun cart(): Cart = Cart().also { Shop.cartsOpened++ }

    @Test
    fun oneItem() {
        println("a passing test's output")
        assertEquals(250, cart().add(Item("tea", 250)).totalCents())
    }

    @Test
    fun discountFromTenItems() {
        val cart = cart().add(Item("cup", 100, quantity = 10))
        println("ten cups: subtotal ${cart.subtotalCents()}")
        assertEquals(900, cart.totalCents(), "ten items get 10 % off")
    }

    @ParameterizedTest
    @ValueSource(ints = [1, 2, 3])
    fun quantitiesAddUp(quantity: Int) {
        assertEquals(quantity, cart().add(Item("pen", 50, quantity)).size)
    }

    @Disabled("the shop has no coupons yet")
    @Test
    fun coupon() {
        error("never runs")
    }

    @TestFactory
    fun pricesAreKept() = listOf(10L, 20L).map { price ->
        DynamicTest.dynamicTest("price $price") { assertEquals(price, cart().add(Item("x", price)).totalCents()) }
    }

    @Nested
    inner class Empty {
        @Test
        fun totalIsZero() {
            assertEquals(0, cart().totalCents())
        }
    }
}
