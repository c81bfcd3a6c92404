package sample

/** How a catalogue prints a book; implementations are found with java.util.ServiceLoader, as plugins are. */
interface BookFormat {
    val name: String
    fun format(book: Book): String
}

class CitationFormat : BookFormat {
    override val name = "citation"
    override fun format(book: Book) = "${book.author.name}. ${displayTitle(book.title)}. ${book.year}."
}

/** Every format on the classpath, through the context class loader as frameworks look them up. */
fun availableFormats(): List<String> = java.util.ServiceLoader.load(BookFormat::class.java).map { it.name }
