package pantry

data class Shelf(val item: String, val count: Int)

class Pantry(shelves: List<Shelf> = emptyList()) {
    private val counts = shelves.associate { it.item to it.count }.toMutableMap()

    fun count(item: String): Int = counts[item] ?: 0

    fun take(item: String, n: Int = 1): Boolean {
        val left = count(item)
        if (left < n) return false
        counts[item] = left - n
        return true
    }

    /** The bug the tests find: a restock replaces what is left instead of adding to it. */
    fun restock(item: String, n: Int) {
        counts[item] = n
    }

    fun shoppingList(minimum: Int): List<String> = counts.filterValues { it < minimum }.keys.sorted()
}
