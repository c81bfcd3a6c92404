package multi.app

import multi.core.Money

class Cart(private val prices: List<Money>) {
    fun total(): Money = prices.fold(Money(0)) { acc, m -> acc + m }
}
