package gradlerepl.repl

import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator
import kotlin.script.experimental.api.*
import kotlin.script.experimental.jvm.KJvmEvaluatedSnippet
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.jvm.jvm
import kotlin.script.experimental.jvm.lastSnippetClassLoader
import kotlin.script.experimental.util.LinkedSnippet
import kotlin.script.experimental.util.LinkedSnippetImpl

/**
 * The K2 REPL evaluator's chain of snippet class loaders, for snippets the driver brings into it without the evaluator's
 * own `eval`. `K2ReplEvaluator.eval` loads each snippet's classes in a loader whose parent is the last evaluated
 * snippet's (`lastSnippetClassLoader`, read from that snippet's result: its class, else its instance's class) and then
 * records the snippet as the last one; later snippets find every earlier snippet's classes so.
 */

/** The configuration the evaluator would load the next snippet with: chained to the last evaluated snippet's loader. */
internal fun K2ReplEvaluator.nextConfiguration(configuration: ScriptEvaluationConfiguration): ScriptEvaluationConfiguration {
    val previous = lastEvaluatedSnippet?.get()?.result
    val loader = (previous?.scriptClass?.java ?: previous?.scriptInstance?.javaClass)?.classLoader
    return if (loader == null) configuration else configuration.with { jvm { lastSnippetClassLoader(loader) } }
}

/** Records the snippet as the evaluator's last one (a private setter), so the next one loads from its class loader. */
internal fun K2ReplEvaluator.advance(
    compiled: KJvmCompiledScript, configuration: ScriptEvaluationConfiguration, result: ResultValue,
): LinkedSnippet<KJvmEvaluatedSnippet> {
    val evaluated = LinkedSnippetImpl(KJvmEvaluatedSnippet(compiled, configuration, result), lastEvaluatedSnippet)
    LAST_EVALUATED.set(this, evaluated)
    return evaluated
}

private val LAST_EVALUATED = K2ReplEvaluator::class.java.getDeclaredField("lastEvaluatedSnippet").apply { isAccessible = true }

/** What a snippet kept in the chain without running reports as its result: it has a class, and no instance. */
private class SnippetNeverRan : RuntimeException("the snippet was stopped while it compiled and never ran", null, false, false)

/**
 * Brings a compiled snippet that must not run (stopped while it compiled) into the evaluator's chain, as `eval` would
 * but without running it. The K2 REPL's compiler already holds it in its history and compiles later snippets against its
 * declarations: without its classes in the chain, a later use of its class is a NoClassDefFoundError and of its vals an
 * error from REPL internals. Its class is loaded, not initialised, so neither its body nor an initialiser of it runs;
 * its result is an error with no instance, the way a snippet's that threw is, so a use of its vals meets no instance
 * (the worker says the snippet never ran).
 *
 * @return the snippet's class loader, which sees every earlier snippet's classes and now its own.
 */
internal fun chainWithoutRunning(
    evaluator: K2ReplEvaluator, linked: LinkedSnippet<out CompiledSnippet>, configuration: ScriptEvaluationConfiguration,
): ClassLoader {
    val compiled = linked.get() as KJvmCompiledScript
    val current = evaluator.nextConfiguration(configuration)
    val snippetClass = runSuspend { compiled.getClass(current) }.valueOr { failure ->
        throw IllegalStateException("the stopped snippet's classes could not be loaded: ${failure.reports.joinToString { it.message }}")
    }
    evaluator.advance(compiled, current, ResultValue.Error(SnippetNeverRan(), null, snippetClass))
    return snippetClass.java.classLoader
}
