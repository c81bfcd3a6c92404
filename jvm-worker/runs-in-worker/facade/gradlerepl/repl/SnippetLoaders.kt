package gradlerepl.repl

import org.jetbrains.kotlin.codegen.BytesUrlUtils
import java.net.URL
import java.util.Collections
import java.util.Enumeration
import java.util.concurrent.ConcurrentHashMap
import kotlin.script.experimental.api.*
import kotlin.script.experimental.jvm.JvmScriptEvaluationConfigurationKeys
import kotlin.script.experimental.jvm.impl.KJvmCompiledModuleInMemory
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.jvm.impl.getOrCreateActualClassloader
import kotlin.script.experimental.jvm.jvm
import kotlin.script.experimental.jvm.lastSnippetClassLoader
import kotlin.script.experimental.util.PropertiesCollection

/**
 * The class loaders a session's snippets run in, each one step from every earlier snippet's classes however long the
 * session.
 *
 * Left to itself, the K2 REPL's evaluator makes each snippet's loader under the last evaluated snippet's
 * (`lastSnippetClassLoader`), so the n-th snippet's loader has n snippet loaders above it, and every class it loads —
 * its own, each type its code names, a library's `Class.forName` — asks each of them in turn, parent first: a warm
 * `1 + 1` took 0.9 ms to run at snippet 100 of a session and 2.9 ms at snippet 800, 0.4 and 1.8 ms to render (Kotlin
 * 2.3.21). Here each snippet's loader is made the evaluator's way (`getOrCreateActualClassloader`: the libraries a
 * snippet's `@file:DependsOn` added go in between, once) but under a [SnippetClasses] loader, which answers every
 * earlier snippet's classes from a map, and the evaluator is handed that loader (`actualClassLoader`) to run it in —
 * which also leaves nothing to read from the evaluator's own record of its last snippet.
 *
 * Which class a name means is as before: snippet classes are named after their snippet (`_12`, `_12$Point`), so no two
 * snippets define one name, and a name neither snippet nor library defines goes on to the project and the JDK.
 */
internal class SnippetLoaders {
    private val classes = ConcurrentHashMap<String, Class<*>>()
    // Why a snippet's class could not be defined (its supertype missing): a later snippet's use of it meets that again.
    private val undefinable = ConcurrentHashMap<String, LinkageError>()
    private val resources = ConcurrentHashMap<String, List<ByteArray>>()
    // What the next snippet's loader is made under: null until the first snippet (then the evaluator's base loader).
    @Volatile private var top: SnippetClasses? = null
    // The newest snippet's own files, which its loader answers itself: in the map once a later snippet comes.
    private var newestFiles: Map<String, ByteArray> = emptyMap()

    /** The newest snippet's class loader, which sees every snippet's classes so far; null before the first. */
    @Volatile var newest: ClassLoader? = null
        private set

    /**
     * The configuration a compiled snippet runs with: its class loader made (with any library loaders its
     * dependencies add) under the earlier snippets' classes, and its classes loaded — defined, not initialised, so
     * nothing of it runs — and added to what later snippets see. A snippet stopped before it runs is brought in so
     * too: the REPL's history keeps it, and later snippets compile against its declarations.
     */
    fun configurationFor(compiled: KJvmCompiledScript, configuration: ScriptEvaluationConfiguration): ScriptEvaluationConfiguration {
        val above = top
        val loader = compiled.getOrCreateActualClassloader(
            if (above == null) configuration else configuration.with { jvm { lastSnippetClassLoader(above) } },
        )
        // A library added by this snippet sits between its loader and the earlier snippets': later ones go under it.
        val parent = loader.parent
        if (above == null || parent !== above) top = SnippetClasses(parent, classes, undefinable, resources.takeIf { above == null })
        add(compiled, loader)
        newest = loader
        return configuration.with { set(ACTUAL_CLASS_LOADER, loader) }
    }

    private fun add(compiled: KJvmCompiledScript, loader: ClassLoader) {
        newestFiles.forEach { (path, bytes) -> resources.merge(path, listOf(bytes)) { had, more -> had + more } }
        val files = (compiled.getCompiledModule() as? KJvmCompiledModuleInMemory)?.compilerOutputFiles.orEmpty()
        for (path in files.keys) {
            if (!path.endsWith(".class")) continue
            val name = path.removeSuffix(".class").replace('/', '.')
            val loaded = try {
                loader.loadClass(name) as Class<*>?
            } catch (e: LinkageError) {
                undefinable.putIfAbsent(name, e)
                null
            }
            if (loaded != null) classes.putIfAbsent(name, loaded)
        }
        newestFiles = files
    }
}

/**
 * The evaluation key that hands a compiled script the loader to run in, which `getClass` then takes as it is
 * (`jvm.actualClassLoader`: public on the JVM, `internal` to Kotlin code, so read by its getter).
 */
@Suppress("UNCHECKED_CAST")
private val ACTUAL_CLASS_LOADER: PropertiesCollection.Key<ClassLoader> =
    Class.forName("kotlin.script.experimental.jvm.JvmScriptEvaluationKt")
        .getMethod("getActualClassLoader", JvmScriptEvaluationConfigurationKeys::class.java)
        .invoke(null, ScriptEvaluationConfiguration.jvm) as PropertiesCollection.Key<ClassLoader>

/**
 * The session's snippet classes by name, before the parent's: a snippet class is found at once, and nothing else is
 * named like one. The first of these loaders sits above the first snippet's libraries and every later one below the
 * libraries a snippet added (`@file:DependsOn`); all answer from the same maps, so a loader made earlier finds a later
 * snippet's classes too (as the session's context loader does). Only the first answers the snippets' files, which
 * every later one reaches through it: a file is listed once.
 */
private class SnippetClasses(
    parent: ClassLoader,
    private val classes: Map<String, Class<*>>,
    private val undefinable: Map<String, LinkageError>,
    private val files: Map<String, List<ByteArray>>?,
) : ClassLoader(parent) {
    override fun loadClass(name: String, resolve: Boolean): Class<*> =
        classes[name] ?: undefinable[name]?.let { throw it } ?: super.loadClass(name, resolve)

    override fun findResource(name: String): URL? = files?.get(name)?.firstOrNull()?.let(BytesUrlUtils::createBytesUrl)

    override fun findResources(name: String): Enumeration<URL> =
        Collections.enumeration(files?.get(name).orEmpty().map(BytesUrlUtils::createBytesUrl))
}
