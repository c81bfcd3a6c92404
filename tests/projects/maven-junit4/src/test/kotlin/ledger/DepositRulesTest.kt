package ledger

import org.junit.Assert.assertThrows
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters

@RunWith(Parameterized::class)
class DepositRulesTest(private val cents: Long) {
    companion object {
        @JvmStatic
        @Parameters(name = "deposit {0}")
        fun amounts(): List<Long> = listOf(0L, -1L, -250L)
    }

    @Test
    fun aDepositThatIsNotPositiveIsRefused() {
        assertThrows(IllegalArgumentException::class.java) { Ledger().deposit(cents) }
    }
}
