package mixed

/** Kotlin that uses the Java API and is used by it. */
object Routes {
    private val handlers = mutableMapOf<String, Handler>()

    fun get(path: String, handler: Handler) = apply { handlers[path] = handler }

    fun call(path: String, request: String): String = handlers.getValue(path).handle(request)

    fun upper(text: String) = text.uppercase()
}
