package ledger

import org.junit.Assert.assertEquals
import org.junit.Before
import org.junit.Ignore
import org.junit.Test
import org.junit.experimental.categories.Category

/** A JUnit 4 category: the vintage engine reports it as the tag `ledger.Slow`. */
interface Slow

class LedgerTest {
    private lateinit var ledger: Ledger

    @Before
    fun open() {
        ledger = Ledger()
        ledger.deposit(1000)
    }

    @Test
    fun depositAddsToTheBalance() {
        ledger.deposit(250)
        assertEquals(1250, ledger.balance)
    }

    @Test(expected = InsufficientFunds::class)
    fun withdrawingMoreThanTheBalanceIsRefused() {
        ledger.withdraw(5000)
    }

    @Ignore("statements are not written yet")
    @Test
    fun monthlyStatement() {
    }

    @Category(Slow::class)
    @Test
    fun manySmallDepositsAddUp() {
        repeat(10_000) { ledger.deposit(1) }
        assertEquals(11_000, ledger.balance)
    }
}
