package sample

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope

/** Average publication year per author, computed concurrently (uses kotlinx-coroutines). */
suspend fun averageYearByAuthor(shelf: Shelf): Map<String, Double> = coroutineScope {
    shelf.books.groupBy { it.author.name }
        .map { (author, books) -> async { author to books.map { it.year }.average() } }
        .awaitAll()
        .toMap()
}
