package shop

import java.io.BufferedReader
import java.io.InputStreamReader

data class Item(val name: String, val price: Int)

/** The app's state: what an attached session reads and changes. */
object Inventory {
    val items = mutableListOf(Item("apple", 3), Item("pear", 5))
    @Volatile var open = true

    fun total(): Int = items.sumOf { it.price }
}

/**
 * Prints "ready" once started, then answers each line on stdin: `total` and `count` print the inventory's total and
 * size as the app sees them, so a test sees a change a snippet made from the app's own side; `buy` adds an item.
 */
fun main() {
    println("ready")
    val input = BufferedReader(InputStreamReader(System.`in`))
    while (true) {
        val line = input.readLine() ?: break
        when (line.trim()) {
            "total" -> println("total=${Inventory.total()} open=${Inventory.open}")
            "count" -> println("count=${Inventory.items.size}")
            "buy" -> { Inventory.items += Item("plum", 7); println("bought") }
        }
    }
    // stdin closed: the test is done with the app; it keeps nothing running.
}
