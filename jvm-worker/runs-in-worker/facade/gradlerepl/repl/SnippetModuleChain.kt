package gradlerepl.repl

import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.FirSourceModuleData
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
 * Keeps a session's snippet modules from costing twice as much with every snippet on Kotlin 2.2–2.3.10.
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
internal class SnippetModuleChain(private val state: K2ReplCompilationState) {
    private val friends: java.lang.reflect.Field? =
        if (!walkRemembersNothing()) null
        else runCatching { FirSourceModuleData::class.java.getDeclaredField("friendDependencies").apply { isAccessible = true } }.getOrNull()

    fun afterCompilation() {
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
