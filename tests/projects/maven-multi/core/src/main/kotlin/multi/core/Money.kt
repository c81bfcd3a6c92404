package multi.core

data class Money(val cents: Long) {
    operator fun plus(other: Money) = Money(cents + other.cents)
    override fun toString() = "%d.%02d".format(cents / 100, cents % 100)
}
