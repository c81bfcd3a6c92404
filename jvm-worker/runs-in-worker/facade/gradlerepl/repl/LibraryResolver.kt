package gradlerepl.repl

import kotlin.reflect.KClass
import kotlin.script.experimental.api.ResultWithDiagnostics
import kotlin.script.experimental.api.ScriptCompilationConfiguration
import kotlin.script.experimental.api.ScriptConfigurationRefinementContext

/**
 * Resolves the libraries a snippet names with `@file:DependsOn` / `@file:Repository`. Implemented in
 * jvm-worker/runs-in-worker/dependencies, which is built only where Kotlin scripting's Maven resolver could be fetched
 * for the session's Kotlin version; without it the driver has none and says so when a snippet asks.
 */
interface LibraryResolver {
    /** DependsOn and Repository, the file annotations whose snippets the resolver refines. */
    val annotations: List<KClass<out Annotation>>

    fun refine(context: ScriptConfigurationRefinementContext): ResultWithDiagnostics<ScriptCompilationConfiguration>

    /** The coordinates snippets added, in order. */
    fun added(): Array<String>

    /** The repository URLs snippets named, in order. */
    fun repositories(): Array<String>
}
