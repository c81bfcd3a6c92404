package gradlerepl.repl

import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider
import org.jetbrains.kotlin.scripting.compiler.plugin.services.FirReplHistoryProviderImpl

/**
 * Takes back what compiling one snippet recorded in the K2 REPL's state, so a snippet can be compiled without
 * becoming part of the session. The K2 REPL (2.2–2.3) has no API for this; a compilation records itself in
 * exactly three places (K2ReplCompiler.kt, compileImpl and compile):
 * - `ReplModuleDataProvider.moduleDataHistory` gets the snippet's module (and `pathToModuleData` a library's
 *   paths when a refinement added jars); every later snippet depends on what is in that list;
 * - the history provider (`FirReplHistoryProviderImpl`, its private `history` set) gets the snippet's symbol
 *   during body resolution; later snippets resolve earlier names through it, and 2.3.21 numbers snippets by it;
 * - `K2ReplCompilationState.lastCompiledSnippet` advances when it compiled.
 * The module data provider is an internal field of the state, reached by its JVM getter; the history set by its
 * field. One more place holds a compilation's memory rather than its meaning: the Java enhancement cache shared by
 * every snippet (`FirSharableJavaComponents.enhancementStorage`) keeps the Java members each compilation enhanced,
 * keyed by symbols of that compilation's module, and with them its whole FIR session (found with JFR's old-object
 * samples: ~1 MB a compilation that called into Java-backed library classes). Entries of a taken-back compilation's
 * modules are removed; that part is best effort (by reflection, skipped when this Kotlin lays it out otherwise). If a Kotlin release moves them, [untraced] fails before compiling with a message naming what is missing,
 * and the session is untouched. A run keeps its compilation, less its JVM backend's state ([releaseBackends]).
 */
class CompilerMarks(private val state: K2ReplCompilationState, private val history: FirReplHistoryProviderImpl) {

    private fun modules(): ReplModuleDataProvider = replModules(state)

    @Suppress("UNCHECKED_CAST")
    private fun snippets(): MutableSet<Any?> {
        val field = try {
            FirReplHistoryProviderImpl::class.java.getDeclaredField("history")
        } catch (e: NoSuchFieldException) {
            throw IllegalStateException("this Kotlin's FirReplHistoryProviderImpl keeps no 'history' set", e)
        }
        field.isAccessible = true
        return field.get(history) as MutableSet<Any?>
    }

    /** The shared Java components: 2.2 keeps them on the state, 2.3 on its session factory context. */
    private fun javaComponents(): Any? {
        val getters = state.javaClass.methods.associateBy { it.name }
        getters["getPredefinedJavaComponents\$kotlin_scripting_compiler"]?.let { return it.invoke(state) }
        val context = getters["getSessionFactoryContext\$kotlin_scripting_compiler"]?.invoke(state) ?: return null
        return context.javaClass.getMethod("getPredefinedJavaComponents").invoke(context)
    }

    private fun forgetEnhancements(modules: Set<Any>) {
        if (modules.isEmpty()) return
        try {
            val components = javaComponents() ?: return
            val storage = components.javaClass.getMethod("getEnhancementStorage").invoke(components) ?: return
            val byOwner = mapIn(fieldValue(storage, "cacheByOwner")) ?: return
            for (cache in byOwner.values.toList()) {
                for (field in cache?.javaClass?.declaredFields.orEmpty()) {
                    field.isAccessible = true
                    val map = mapIn(field.get(cache)) ?: continue
                    map.entries.removeIf { (key, value) -> moduleOf(key) in modules || moduleOf(value) in modules }
                }
            }
        } catch (e: Exception) {
            // Memory hygiene only: the check's answer and the session's state don't depend on it.
        }
    }

    private fun fieldValue(owner: Any, name: String): Any? {
        var type: Class<*>? = owner.javaClass
        while (type != null) {
            type.declaredFields.firstOrNull { it.name == name }?.let { it.isAccessible = true; return it.get(owner) }
            type = type.superclass
        }
        return null
    }

    /** The map behind one of FIR's caches (`FirThreadUnsafeCache.map`, or a map itself). */
    @Suppress("UNCHECKED_CAST")
    private fun mapIn(cache: Any?): MutableMap<Any?, Any?>? =
        (cache as? MutableMap<Any?, Any?>) ?: cache?.let { fieldValue(it, "map") as? MutableMap<Any?, Any?> }

    // Per class: how to read an item's module data (getModuleData, or getFir then getModuleData), looked up once.
    private val moduleGetters = HashMap<Class<*>, java.lang.reflect.Method?>()
    private val firGetters = HashMap<Class<*>, java.lang.reflect.Method?>()

    private fun getter(cache: HashMap<Class<*>, java.lang.reflect.Method?>, type: Class<*>, name: String, parameters: Int = 0) =
        cache.getOrPut(type) { type.methods.firstOrNull { it.name == name && it.parameterCount == parameters } }

    /** The module data of a FIR symbol or declaration (by name: getFir, getModuleData), or null. */
    private fun moduleOf(item: Any?): Any? {
        if (item == null) return null
        getter(moduleGetters, item.javaClass, "getModuleData")?.let { return runCatching { it.invoke(item) }.getOrNull() }
        val fir = getter(firGetters, item.javaClass, "getFir")?.let { runCatching { it.invoke(item) }.getOrNull() } ?: return null
        return getter(moduleGetters, fir.javaClass, "getModuleData")?.let { runCatching { it.invoke(fir) }.getOrNull() }
    }

    /**
     * Drops what the modules a run's compilation added (those past [since]) keep of their JVM backend run. Fir2Ir
     * sets the FIR session's Java element finder's `propertyEvaluator` to a lambda holding that run's
     * `Fir2IrComponentsStorage`, and through it the run's whole IR and `JvmBackendContext` (~1.2 MB a snippet; found
     * with a heap dump's paths to GC roots). The FIR session itself stays (with the snippet in the REPL's history)
     * for later snippets to resolve against, and the lambda stayed with it. Nothing calls it after its own
     * compilation: it evaluates Kotlin constants for Java sources compiled together with the Kotlin ones (a snippet
     * has none), and without it the finder falls back to FIR's own evaluator. Best effort, by reflection: skipped
     * when this Kotlin lays it out otherwise.
     */
    fun releaseBackends(since: Int) {
        val history = try {
            modules().moduleDataHistory
        } catch (e: Exception) {
            return
        }
        for (module in history.subList(minOf(since, history.size), history.size)) {
            try {
                dropPropertyEvaluator(module)
            } catch (e: Exception) {
                // Memory hygiene only: the session's state doesn't depend on it.
            } catch (e: LinkageError) {
            }
        }
    }

    private fun dropPropertyEvaluator(module: Any?) {
        val session = module?.let { getter(sessionGetters, it.javaClass, "getSession")?.invoke(it) } ?: return
        finderAccessor?.invoke(null, session)?.let { finder ->
            getter(evaluatorSetters, finder.javaClass, "setPropertyEvaluator", 1)?.invoke(finder, null)
        }
        dropSymbolCaches(session)
    }

    /**
     * Empties the caches of the snippet's composite symbol provider: which names each package of the classpath
     * declares, and the symbols its compilation looked up (~2,000 names a snippet, ~0.3 MB). Later snippets don't
     * read them: they resolve an earlier snippet through its own providers (the composite is flattened into
     * theirs). Every one is a cache computed again on a miss (FirCache), so emptying it changes no answer.
     */
    private fun dropSymbolCaches(session: Any) {
        for (accessor in symbolProviderAccessors) {
            val provider = accessor.invoke(null, session) ?: continue
            if (provider.javaClass.name != "org.jetbrains.kotlin.fir.resolve.providers.impl.FirCachingCompositeSymbolProvider") continue
            emptyCaches(provider)
            provider.javaClass.methods.firstOrNull { it.name == "getSymbolNamesProvider" && it.parameterCount == 0 }
                ?.invoke(provider)?.let(::emptyCaches)
        }
    }

    /** Clears each FirCache the object holds in a field, directly or through an initialised lazy value. */
    private fun emptyCaches(owner: Any) {
        var type: Class<*>? = owner.javaClass
        while (type != null && type != Any::class.java) {
            for (field in type.declaredFields) {
                if (java.lang.reflect.Modifier.isStatic(field.modifiers)) continue
                field.isAccessible = true
                var value = field.get(owner) ?: continue
                if (isA(value, "org.jetbrains.kotlin.fir.caches.FirLazyValue")) {
                    val lazy = fieldValue(value, "lazyValue\$delegate") as? Lazy<*> ?: continue
                    value = (if (lazy.isInitialized()) lazy.value else null) ?: continue
                }
                if (isA(value, "org.jetbrains.kotlin.fir.caches.FirCache")) mapIn(value)?.clear()
            }
            type = type.superclass
        }
    }

    private fun isA(value: Any, className: String): Boolean =
        generateSequence<Class<*>>(value.javaClass) { it.superclass }.any { it.name == className }

    private val sessionGetters = HashMap<Class<*>, java.lang.reflect.Method?>()
    private val evaluatorSetters = HashMap<Class<*>, java.lang.reflect.Method?>()
    /** `FirSession.symbolProvider` and `.dependenciesSymbolProvider` (top-level extension properties of FIR). */
    private val symbolProviderAccessors: List<java.lang.reflect.Method> by lazy {
        runCatching {
            Class.forName("org.jetbrains.kotlin.fir.resolve.providers.FirSymbolProviderKt", false, state.javaClass.classLoader)
                .methods.filter { it.name in setOf("getSymbolProvider", "getDependenciesSymbolProvider") && it.parameterCount == 1 }
        }.getOrDefault(emptyList())
    }
    /** `FirSession.javaElementFinder` (a top-level extension property of the compiler's FIR). */
    private val finderAccessor: java.lang.reflect.Method? by lazy {
        runCatching {
            Class.forName("org.jetbrains.kotlin.fir.java.FirJavaElementFinderKt", false, state.javaClass.classLoader)
                .methods.firstOrNull { it.name == "getJavaElementFinder" && it.parameterCount == 1 }
        }.getOrNull()
    }

    /** Runs [block] (a compilation) and then restores the state as it was before, however the block ended. */
    fun <T> untraced(block: () -> T): T {
        val modules = modules()
        val history = modules.moduleDataHistory
        val paths = modules.pathToModuleData
        val snippets = snippets()
        val moduleCount = history.size
        val pathsBefore = HashSet(paths.keys)
        val snippetsBefore = ArrayList(snippets)
        val last = state.lastCompiledSnippet
        try {
            return block()
        } finally {
            state.lastCompiledSnippet = last
            val added = java.util.Collections.newSetFromMap(java.util.IdentityHashMap<Any, Boolean>())
            added.addAll(history.subList(moduleCount, history.size))
            forgetEnhancements(added)
            while (history.size > moduleCount) history.removeAt(history.size - 1)
            paths.keys.retainAll(pathsBefore)
            snippets.retainAll(snippetsBefore.toSet())
            check(history.size == moduleCount && snippets.size == snippetsBefore.size) {
                "the REPL's state could not be restored after a check"
            }
        }
    }
}
