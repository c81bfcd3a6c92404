package multi.app

import multi.core.Money

object CartFixtures {
    val twoItems = Cart(listOf(Money(150), Money(275)))
}
