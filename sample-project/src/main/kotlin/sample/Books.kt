package sample

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import org.apache.commons.text.WordUtils

@Serializable
data class Author(val name: String, val born: Int)

@Serializable
data class Book(val title: String, val author: Author, val year: Int, val tags: List<String> = emptyList())

@Serializable
data class Shelf(val name: String, val books: List<Book>)

private val json = Json { prettyPrint = false; ignoreUnknownKeys = true }

/** Parses a shelf from JSON, ignoring fields this model doesn't know. */
fun parseShelf(text: String): Shelf = json.decodeFromString(Shelf.serializer(), text)

fun Shelf.toJson(): String = json.encodeToString(Shelf.serializer(), this)

/** Title-cases a title the way the catalogue prints it (uses commons-text). */
fun displayTitle(title: String): String = WordUtils.capitalizeFully(title)

/** The books published before [year], oldest first. */
fun Shelf.publishedBefore(year: Int): List<Book> = books.filter { it.year < year }.sortedBy { it.year }

val classics = Shelf(
    name = "classics",
    books = listOf(
        Book("the trial", Author("Franz Kafka", 1883), 1925, listOf("novel")),
        Book("dubliners", Author("James Joyce", 1882), 1914, listOf("stories")),
        Book("the waves", Author("Virginia Woolf", 1882), 1931),
    ),
)
