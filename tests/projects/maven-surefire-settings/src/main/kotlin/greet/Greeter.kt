package greet

/** Greets in the style and with the punctuation the environment and system properties choose. */
object Greeter {
    fun greet(name: String): String {
        val style = System.getenv("GREETING_STYLE") ?: "casual"
        val punctuation = System.getProperty("greeting.punctuation", ".")
        return (if (style == "formal") "Good day, $name" else "hi $name") + punctuation
    }

    fun locale(): String = System.getProperty("greeting.locale", "none")
}
