package gradlerepl.host

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
 * field. If a Kotlin release moves them, [untraced] fails before compiling with a message naming what is missing,
 * and the session is untouched.
 */
class CompilerMarks(private val state: K2ReplCompilationState, private val history: FirReplHistoryProviderImpl) {

    private fun modules(): ReplModuleDataProvider {
        val getter = try {
            state.javaClass.getMethod("getModuleDataProvider\$kotlin_scripting_compiler")
        } catch (e: NoSuchMethodException) {
            throw IllegalStateException("this Kotlin's K2ReplCompilationState has no moduleDataProvider", e)
        }
        return getter.invoke(state) as ReplModuleDataProvider
    }

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
            while (history.size > moduleCount) history.removeAt(history.size - 1)
            paths.keys.retainAll(pathsBefore)
            snippets.retainAll(snippetsBefore.toSet())
            check(history.size == moduleCount && snippets.size == snippetsBefore.size) {
                "the REPL's state could not be restored after a check"
            }
        }
    }
}
