package shop

/** Opened by the all-open option the POM passes as a compiler argument (`-P plugin:…:annotation=shop.Open`). */
annotation class Open

/** Given a no-arg constructor by the no-arg option the POM passes in one argument (`-P=plugin:…`). */
annotation class Record

@Open
class Shelf {
    fun label(): String = "shelf"
}

@Record
class Receipt(val total: Long)
