package sample

/** Test-only data, visible to snippets run against the `test` source set. */
object Fixtures {
    val emptyShelf = Shelf("empty", emptyList())
    fun shelfOf(vararg titles: String) = Shelf("fixture", titles.mapIndexed { i, t -> Book(t, Author("Anon", 1900), 1950 + i) })
}
