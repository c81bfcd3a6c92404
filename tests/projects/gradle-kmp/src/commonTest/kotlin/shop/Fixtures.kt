package shop

object Fixtures {
    val tea = Item("tea", 250)
}
