package gradlerepl.repl

import gradlerepl.runtime.ReplOutput
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.FirSourceModuleData
import org.jetbrains.kotlin.fir.declarations.FirClassLikeDeclaration
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.java.JavaSymbolProvider
import org.jetbrains.kotlin.fir.session.StructuredProviders
import org.jetbrains.kotlin.fir.session.structuredProviders
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.scripting.compiler.plugin.services.FirReplHistoryProviderImpl
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider

/** The REPL state's module data provider: an internal field of the state, reached by its JVM getter. */
internal fun replModules(state: K2ReplCompilationState): ReplModuleDataProvider {
    val getter = try {
        state.javaClass.getMethod("getModuleDataProvider\$kotlin_scripting_compiler")
    } catch (e: NoSuchMethodException) {
        throw IllegalStateException("this Kotlin's K2ReplCompilationState has no moduleDataProvider", e)
    }
    return getter.invoke(state) as ReplModuleDataProvider
}

/**
 * Keeps what a session's snippet modules cost each later compilation from growing with every snippet.
 *
 * **Modules of snippets that declare no class leave the list later snippets depend on** ([afterCompilation]). The K2
 * REPL makes each snippet's module depend on every earlier snippet's module (`addNewSnippetModuleData`: all of
 * `moduleDataHistory`), and each compilation builds a FIR session whose symbol providers include all of theirs, so
 * every class looked up (`FirCachingCompositeSymbolProvider.computeClass`, Java classes by package) walks them all:
 * a warm `1 + 1` took 49 ms at snippet 100 of a session and 108 ms at snippet 800 (Kotlin 2.3.21). A later snippet
 * reaches an earlier one's values, functions and result (`res12`) as members of its snippet class, through the
 * REPL's history (`FirReplHistoryProvider`: the snippets' symbols and their sessions, which stay); only a class,
 * object, interface or type alias is looked up by its id through the modules. So a snippet that declares none (a
 * call, an expression, a `val`, a `fun`: most of an agent's snippets) takes its module out of that list; its snippet
 * stays in the history, numbered as before. The same `1 + 1` then took 44 ms at snippet 100 and 40 ms at 800.
 *
 * **A class's module leaves it too once nothing reaches the class** ([ShadowedClassModules]): each of its classes was
 * declared again by name, and no signature later snippets reach mentions it.
 *
 * **A module that stays hands later compilations only the providers that can answer** ([dropJavaProviders]).
 *
 * **And a session's snippet modules are kept from costing twice as much with every snippet on Kotlin 2.2–2.3.10.**
 *
 * The K2 REPL gives each snippet's module every earlier snippet's module as a friend
 * (`ReplModuleDataProvider.addNewSnippetModuleData`), and each compilation registers a Java element finder for its
 * session whose constructor collects the session's source dependencies, friends of friends, into a list
 * (`FirJavaElementFinder.collectAllDependentSourceSessionsTo`), remembering nothing it visited: 2^n entries for the
 * n-th snippet. Measured on 2.2.21: 181 ms at snippet 20, 3.3 s and 671 MB at 23, OutOfMemoryError (1.5 GB heap) at
 * 24, the session lost. Kotlin 2.3.20 collects into a set; this is needed where the walk still takes a list, which
 * [walkRemembersNothing] reads from the compiler itself rather than from a version number.
 *
 * After each run's compilation every snippet module but the newest keeps one friend, the snippet module before it.
 * What each module reaches through friends is unchanged (the same earlier modules, now one step at a time); the
 * newest one still names all of them directly, and later snippets are made from the REPL's history, not from
 * friends, so they see every earlier declaration as before. The walk then visits n(n-1)/2 modules. Best effort, by
 * reflection: where this Kotlin lays the modules out otherwise, nothing is changed.
 */
internal class SnippetModuleChain(
    private val state: K2ReplCompilationState,
    private val history: FirReplHistoryProviderImpl,
    historyIndex: HistoryIndex?,
) {
    private val shadowed = historyIndex?.let(::ShadowedClassModules)
    private val sourceProviders: java.lang.reflect.Field? = runCatching {
        StructuredProviders::class.java.getDeclaredField("sourceProviders").apply { isAccessible = true }
    }.getOrNull()
    private val friends: java.lang.reflect.Field? =
        if (!walkRemembersNothing()) null
        else runCatching { FirSourceModuleData::class.java.getDeclaredField("friendDependencies").apply { isAccessible = true } }.getOrNull()

    /**
     * How many modules the history holds, taken before a compilation and given back to [afterCompilation]; null where
     * this Kotlin keeps no history this code can read (then nothing is taken out, and the run goes on).
     */
    fun count(): Int? = try {
        replModules(state).moduleDataHistory.size
    } catch (e: Exception) {
        null
    }

    /** After a run's compilation, which began when the history held [before] modules. */
    fun afterCompilation(before: Int) {
        dropClassFree(before)
        dropJavaProviders(before)
        // Last: it takes out earlier modules, after which the list's index `before` no longer marks this compilation's.
        dropShadowed()
        chainFriends()
    }

    private fun dropClassFree(before: Int) {
        try {
            val modules = replModules(state).moduleDataHistory
            if (modules.size <= before) return
            // Only this compilation's modules (a library's is binary) can leave, and its snippets are the history's last.
            val added = modules.subList(before, modules.size)
            val snippets = added.filterIsInstance<FirSourceModuleData>().toSet()
            val classFree = history.getSnippets().toList().takeLast(snippets.size)
                .filter { it.moduleData in snippets && declaresClasses(it) == false }.map { it.moduleData }.toSet()
            added.removeAll(classFree)
        } catch (e: Exception) {
            // Only speed depends on it; the session's meaning doesn't.
        } catch (e: LinkageError) {
        }
    }

    private fun dropShadowed() {
        val shadowed = shadowed ?: return
        try {
            shadowed.update(replModules(state).moduleDataHistory, history.getSnippets().toList())
        } catch (e: Exception) {
            keepShadowed(e) // Only speed depends on it; the session's meaning doesn't.
        } catch (e: LinkageError) {
            keepShadowed(e)
        }
    }

    private var saidWhyShadowedStay = false

    /** Says once, in the worker's log, why a class declared again keeps its earlier module this time. */
    private fun keepShadowed(why: Throwable) {
        if (saidWhyShadowedStay) return
        saidWhyShadowedStay = true
        ReplOutput.toWorkerLog("a class declared again keeps its earlier snippet's module: $why")
    }

    /**
     * A kept snippet module's Java provider leaves what later compilations ask. Each compilation's session asks every
     * source provider of every kept snippet module for each class it looks up (`FirCachingCompositeSymbolProvider`
     * walks them in turn) and for the names of each package it reads; a snippet's Java provider can never answer, as
     * the REPL makes each snippet's session with an empty Java source scope (`compileImpl`:
     * `AbstractProjectFileSearchScope.EMPTY`, 2.2.20 to 2.3.21: a snippet is Kotlin alone), yet it was half of what
     * the kept modules cost a lookup. The module's own session is left as it is: its symbol providers were made from
     * that list when it was created. The plugins' provider stays although it
     * names no package when it generated nothing top-level: it also answers the nested classes it generated
     * (a `@Serializable` class's `Companion` and `$serializer`), by id.
     */
    private fun dropJavaProviders(before: Int) {
        val field = sourceProviders ?: return leaveJavaProviders("StructuredProviders has no sourceProviders here")
        try {
            val modules = replModules(state).moduleDataHistory
            for (module in modules.subList(minOf(before, modules.size), modules.size)) {
                if (module.dependencies.isEmpty()) continue // a library's module (the REPL's own test)
                val structured = module.session.structuredProviders
                val answering = structured.sourceProviders.filter { it !is JavaSymbolProvider }
                if (answering.size != structured.sourceProviders.size) field.set(structured, answering)
            }
        } catch (e: Exception) {
            leaveJavaProviders(e.toString()) // Only speed depends on it; the session's meaning doesn't.
        } catch (e: LinkageError) {
            leaveJavaProviders(e.toString())
        }
    }

    private var saidWhyJavaProvidersStay = false

    /** Says once, in the worker's log, why kept modules keep their Java providers (a later compile is slower). */
    private fun leaveJavaProviders(why: String) {
        if (saidWhyJavaProvidersStay) return
        saidWhyJavaProvidersStay = true
        ReplOutput.toWorkerLog("kept snippet modules keep their Java providers: $why")
    }

    /**
     * Whether the snippet declares a class-like later snippets look up by id: among the snippet class's members
     * (2.3.20+) or its body's statements (2.2–2.3.10), those the REPL marks as its snippet declarations. Null (its
     * module is kept) where this Kotlin lays a snippet out otherwise; read by name, as the two layouts differ.
     */
    @OptIn(SymbolInternals::class)
    private fun declaresClasses(snippet: FirReplSnippetSymbol): Boolean? {
        val fir = snippet.fir
        val members = snippetClassMembers(fir)
            ?: fir.javaClass.methods.firstOrNull { it.name == "getBody" && it.parameterCount == 0 }
                ?.invoke(fir)?.let { it.javaClass.getMethod("getStatements").invoke(it) as? List<*> }
            ?: return null
        return members.any { it is FirClassLikeDeclaration && it.isReplSnippetDeclaration == true }
    }

    private fun chainFriends() {
        val field = friends ?: return
        try {
            var previous: FirModuleData? = null
            for (module in replModules(state).moduleDataHistory) {
                // The REPL's own test: library modules have no dependencies, snippet modules do.
                if (module !is FirSourceModuleData || module.dependencies.isEmpty()) continue
                val chain = listOfNotNull(previous)
                if (module.friendDependencies != chain) field.set(module, chain)
                previous = module
            }
        } catch (e: Exception) {
            // Only speed and memory depend on it; the session's meaning doesn't.
        }
    }

    private companion object {
        fun walkRemembersNothing(): Boolean = try {
            Class.forName("org.jetbrains.kotlin.fir.java.FirJavaElementFinderKt", false, FirSourceModuleData::class.java.classLoader)
                .declaredMethods.any { it.name == "collectAllDependentSourceSessionsTo" && it.parameterTypes.getOrNull(1) == java.util.List::class.java }
        } catch (e: ReflectiveOperationException) {
            false
        } catch (e: LinkageError) {
            false
        }
    }
}
