package ledger

class InsufficientFunds(message: String) : IllegalStateException(message)

class Ledger {
    private val entries = mutableListOf<Long>()

    val balance: Long get() = entries.sum()

    fun deposit(cents: Long) {
        require(cents > 0) { "a deposit is positive: $cents" }
        entries += cents
    }

    fun withdraw(cents: Long) {
        if (cents > balance) throw InsufficientFunds("balance $balance, asked $cents")
        entries += -cents
    }
}
