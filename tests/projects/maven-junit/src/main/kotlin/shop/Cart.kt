package shop

data class Item(val name: String, val priceCents: Long, val quantity: Int = 1)

/** A shopping cart: items, a total, and a discount from ten items on. */
class Cart {
    private val items = mutableListOf<Item>()

    fun add(item: Item): Cart = apply { items += item }

    val size: Int get() = items.sumOf { it.quantity }

    fun subtotalCents(): Long = items.sumOf { it.priceCents * it.quantity }

    /** 10 % off from ten items on. */
    fun totalCents(): Long {
        val subtotal = subtotalCents()
        return if (size > 10) subtotal - subtotal / 10 else subtotal
    }
}

object Shop {
    /** Carts the tests opened, counted: state a later snippet can read. */
    @JvmStatic var cartsOpened = 0
}
