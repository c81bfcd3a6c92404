package gradlerepl.host

import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator
import org.jetbrains.kotlin.scripting.compiler.plugin.irLowerings.REPL_SNIPPET_EVAL_FUN_NAME
import java.lang.reflect.InvocationTargetException
import java.security.MessageDigest
import java.util.Base64
import kotlin.script.experimental.api.*
import kotlin.script.experimental.jvm.KJvmEvaluatedSnippet
import kotlin.script.experimental.jvm.impl.KJvmCompiledModuleInMemory
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.util.LinkedSnippet

/**
 * Evaluates a snippet whose value is of a value class on Kotlin 2.2, where the REPL's own evaluator can't.
 *
 * 2.2's `K2ReplEvaluator.evalSnippet` finds the snippet's body method by its plain name (`$$eval`, asserted non-null),
 * but the compiler mangles that name when the method returns a value class (`$$eval-<hash>`: a Duration, a Result, a
 * UInt, a project's @JvmInline class), so such a snippet fails with a NullPointerException before it runs. 2.3 reads a
 * result field instead and never fails so. This does what the evaluator does — the same class loader chain, the
 * snippet's INSTANCE, the body method (the mangled one), the evaluator's record of the last snippet advanced so later
 * snippets load from this one's loader. The value's type, which the JVM's erases to the underlying one (`long` for a
 * Duration) and the snippet's metadata doesn't record, is the one whose name the compiler hashed into the mangled
 * name: the value is then shown boxed, as the program would show it. A snippet whose value class can't be named so
 * is left to fail as it did (the worker names the defect).
 *
 * @param failure what the evaluator threw; thrown again when it is not this defect.
 */
internal fun evaluateMangledBody(
    evaluator: K2ReplEvaluator,
    linked: LinkedSnippet<out CompiledSnippet>,
    configuration: ScriptEvaluationConfiguration,
    failure: NullPointerException,
): ResultWithDiagnostics<LinkedSnippet<KJvmEvaluatedSnippet>> {
    val top = failure.stackTrace.firstOrNull()
    if (top?.className != K2ReplEvaluator::class.java.name || top.methodName != "evalSnippet") throw failure
    val compiled = linked.get() as KJvmCompiledScript
    val current = evaluator.nextConfiguration(configuration)
    val snippetClass = runSuspend { compiled.getClass(current) }.valueOr { return it }
    val body = snippetClass.java.methods.firstOrNull { it.name.startsWith("$BODY-") } ?: throw failure
    val valueType = mangledReturnType(body.name.substringAfter('-'), compiled, snippetClass.java) ?: throw failure
    val instance = snippetClass.java.getField("INSTANCE").get(null)
    val receivers = current[ScriptEvaluationConfiguration.implicitReceivers].orEmpty()
    val result = try {
        val value = body.invoke(instance, *receivers.toTypedArray())
        ResultValue.Value("", value, valueType, snippetClass, instance)
    } catch (e: Throwable) {
        ResultValue.Error((e as? InvocationTargetException)?.targetException ?: e, e, snippetClass)
    }
    return evaluator.advance(compiled, current, result).asSuccess()
}

// The body method's name as the compiler gives it (`$$eval`), which the evaluator looks for.
private val BODY = REPL_SNIPPET_EVAL_FUN_NAME.asString()

/**
 * The value class a mangled name's suffix stands for, among the classes the snippet's class file names: the compiler
 * mangles a function returning one with the first 5 bytes of the MD5 of `:L<its name>;` (`:L<its name>?;` when
 * nullable), URL-safe Base64 without padding (`collectFunctionSignatureForManglingSuffix`, `md5base64`).
 */
private fun mangledReturnType(suffix: String, compiled: KJvmCompiledScript, snippetClass: Class<*>): String? {
    val module = compiled.getCompiledModule() as? KJvmCompiledModuleInMemory ?: return null
    val bytes = module.compilerOutputFiles[snippetClass.name.replace('.', '/') + ".class"] ?: return null
    val names = CLASS_NAME.findAll(String(bytes, Charsets.ISO_8859_1)).map { it.value }
        .flatMap { if (it.startsWith("L")) sequenceOf(it, it.drop(1)) else sequenceOf(it) } // `Lkotlin/time/Duration;`
        .map { it.replace('/', '.').replace('$', '.') } + FOLDED
    for (name in names.distinct()) {
        if (md5base64(":L$name;") == suffix) return name
        if (md5base64(":L$name?;") == suffix) return "$name?"
    }
    return null
}

// Value classes whose constants the compiler folds (`1u` is an int in the class file, which then never names UInt).
private val FOLDED = sequenceOf("kotlin.UInt", "kotlin.ULong", "kotlin.UByte", "kotlin.UShort")

private val CLASS_NAME = Regex("""[A-Za-z_$][\w$]*(?:/[A-Za-z_$][\w$]*)*""")

private fun md5base64(signature: String): String =
    Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("MD5").digest(signature.toByteArray()).copyOfRange(0, 5))
