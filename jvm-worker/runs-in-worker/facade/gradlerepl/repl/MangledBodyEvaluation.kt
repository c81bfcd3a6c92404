package gradlerepl.repl

import gradlerepl.both.SnippetBody
import java.lang.reflect.InvocationTargetException
import kotlin.script.experimental.api.*
import kotlin.script.experimental.jvm.KJvmEvaluatedSnippet
import kotlin.script.experimental.jvm.impl.KJvmCompiledModuleInMemory
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.util.LinkedSnippet
import kotlin.script.experimental.util.LinkedSnippetImpl

/**
 * The defect's sign, stated once: a NullPointerException whose top frame is the evaluator's `evalSnippet`. The worker's
 * repl_defects.py reads these constants from this file to name the defect where a snippet isn't evaluated here.
 */
internal object MangledBodyDefect {
    const val EXCEPTION = "java.lang.NullPointerException"
    const val FAILING_CLASS = "org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator"
    const val FAILING_METHOD = "evalSnippet"

    fun metBy(failure: Throwable): Boolean {
        val top = failure.stackTrace.firstOrNull()
        return failure.javaClass.name == EXCEPTION && top?.className == FAILING_CLASS && top.methodName == FAILING_METHOD
    }
}

/**
 * Evaluates a snippet whose value is of a value class on Kotlin 2.2, where the REPL's own evaluator can't.
 *
 * 2.2's `K2ReplEvaluator.evalSnippet` finds the snippet's body method by its plain name (`$$eval`, asserted non-null),
 * but the compiler mangles that name when the method returns a value class (`$$eval-<hash>`: a Duration, a Result, a
 * UInt, a project's @JvmInline class), so such a snippet fails with a NullPointerException before it runs. 2.3 reads a
 * result field instead and never fails so. This does what the evaluator does — the class loader the evaluator was
 * given (SnippetLoaders), the snippet's INSTANCE, the body method (the mangled one). The value's type, which the JVM
 * erases to the underlying one (`long` for a Duration) and the snippet's metadata doesn't record, is the one whose
 * name the compiler hashed into the mangled name: the value is then shown boxed, as the program would show it. A
 * snippet whose value class can't be named so is left to fail as it did (the worker names the defect).
 *
 * @param current the snippet's configuration, which names its class loader (SnippetLoaders).
 * @param failure what the evaluator threw; thrown again when it is not this defect.
 */
internal fun evaluateMangledBody(
    linked: LinkedSnippet<out CompiledSnippet>,
    current: ScriptEvaluationConfiguration,
    failure: NullPointerException,
): ResultWithDiagnostics<LinkedSnippet<KJvmEvaluatedSnippet>> {
    if (!MangledBodyDefect.metBy(failure)) throw failure
    val compiled = linked.get() as KJvmCompiledScript
    val snippetClass = runSuspend { compiled.getClass(current) }.valueOr { return it }
    val body = SnippetBody.method(snippetClass.java) ?: throw failure
    val module = compiled.getCompiledModule() as? KJvmCompiledModuleInMemory ?: throw failure
    val classFile = module.compilerOutputFiles[snippetClass.java.name.replace('.', '/') + ".class"]
    val valueType = SnippetBody.mangledValueType(body, classFile) ?: throw failure
    val instance = snippetClass.java.getField("INSTANCE").get(null)
    val receivers = current[ScriptEvaluationConfiguration.implicitReceivers].orEmpty()
    val result = try {
        val value = body.invoke(instance, *receivers.toTypedArray())
        ResultValue.Value("", value, valueType, snippetClass, instance)
    } catch (e: Throwable) {
        ResultValue.Error((e as? InvocationTargetException)?.targetException ?: e, e, snippetClass)
    }
    return LinkedSnippetImpl(KJvmEvaluatedSnippet(compiled, current, result), null).asSuccess()
}
