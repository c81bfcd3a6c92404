package gradlerepl.repl

import java.util.concurrent.ConcurrentHashMap

/**
 * The K2 REPL's state object: each snippet puts its instance here under its class's name once it ran, and a later
 * snippet reads an earlier one's values through it (`SnippetInstances.get("_3_repl")`). One for the session: snippets
 * load it from the facade (SnippetClassLoaders), an attached app with the first snippet's classes.
 *
 * The REPL would otherwise generate one of its own, a `HashMap` subclass, into the session's first snippet; each later
 * compile then builds the IR of every member of HashMap (a lookup of `get` and `put` among them, in the REPL's
 * lowering), about a fifth of compiling `1 + 1` (bench/README.md). Only the two members the lowering calls are here.
 */
object SnippetInstances {
    private val instances = ConcurrentHashMap<String, Any>()

    fun get(snippetClass: String): Any? = instances[snippetClass]

    fun put(snippetClass: String, instance: Any): Any? = instances.put(snippetClass, instance)
}
