package gradlerepl.repl

import gradlerepl.both.SnippetBody
import gradlerepl.runtime.ReplEvent
import gradlerepl.runtime.Renderer
import org.jetbrains.kotlin.com.intellij.openapi.util.Disposer
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompiler
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ScriptDiagnosticsMessageCollector
import org.jetbrains.kotlin.scripting.compiler.plugin.services.FirReplHistoryProviderImpl
import org.jetbrains.kotlin.scripting.compiler.plugin.services.firReplHistoryProvider
import org.jetbrains.kotlin.scripting.compiler.plugin.services.isReplSnippetSource
import org.jetbrains.kotlin.scripting.compiler.plugin.services.replStateObjectFqName
import java.io.File
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.startCoroutine
import kotlin.script.experimental.api.*
import kotlin.script.experimental.host.ScriptingHostConfiguration
import kotlin.script.experimental.host.toScriptSource
import kotlin.script.experimental.jvm.defaultJvmScriptingHostConfiguration
import kotlin.script.experimental.jvm.baseClassLoader
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.jvm.jvm
import kotlin.script.experimental.jvm.updateClasspath

/**
 * Thrown by an analysis add-on once the compiler's frontend and checkers are done with no error, to end a check
 * before the JVM backend, which a check doesn't need (it is most of a compilation's time and memory). The diagnostics
 * are in the driver's message collector by then.
 */
class AnalysisComplete(@JvmField val valueType: String?) : RuntimeException("the check's analysis is complete", null, false, false)

/** What one snippet came to; Python reads the fields through JPype. */
class SnippetOutcome {
    @JvmField var diagnostics: List<ScriptDiagnostic> = emptyList()
    @JvmField var compiled = false
    @JvmField var result: ResultValue? = null
    @JvmField var rendered: ReplEvent? = null
    @JvmField var renderError: Throwable? = null
    @JvmField var internalError: Throwable? = null
    @JvmField var cancelledBeforeEvaluation = false
    /** A check's answer: the declared type of the snippet's last expression, when it compiled and has one. */
    @JvmField var valueType: String? = null
    /** An attached session's compiled snippet (a KJvmCompiledScript), to be run in another JVM. */
    @JvmField var compiledScript: CompiledSnippet? = null
    /** A run's wall-clock nanoseconds: compiling it, running it, rendering its value (0 for a step that never came). */
    @JvmField var compileNanos = 0L
    @JvmField var evaluateNanos = 0L
    @JvmField var renderNanos = 0L
    /**
     * How many modules a run's compilation depended on (the REPL's list: its libraries' and the snippet modules kept
     * for their classes, SnippetModuleChain), each one more every class lookup asks; -1 where the REPL's list can't
     * be read.
     */
    @JvmField var dependedModules = -1
}

/**
 * The K2 REPL of one session. K2 rather than K1: with compiler plugins such as
 * kotlinx-serialization, K1's REPL backend crashes on a @Serializable class declared in a snippet.
 *
 * @param compileClasspath what snippets compile against: the project classpath plus the host's
 *   stdlib and display API.
 * @param compilerOptions -Xplugin=…, -P plugin:…, language flags, -jvm-target.
 * @param addOnImports the packages of the facade's add-ons this session has (Compose's renderComposable), imported
 *   into every snippet as the display API is.
 */
class ReplDriver(
    compileClasspath: Array<String>,
    private val snippetLoader: ClassLoader,
    compilerOptions: Array<String>,
    private val libraries: LibraryResolver?,
    addOnImports: Array<String>,
) {
    // What a check compiles with: the session's configuration without the @file:DependsOn refinement, which
    // would resolve and add the library (a check changes nothing).
    private val checkConfiguration = ScriptCompilationConfiguration {
        jvm { updateClasspath(compileClasspath.map(::File)) }
        defaultImports("gradlerepl.runtime.*", *addOnImports)
        compilerOptions(*compilerOptions)
    }
    private val compilationConfiguration = ScriptCompilationConfiguration(checkConfiguration) {
        if (libraries != null) {
            // @file:DependsOn / @file:Repository: the K2 REPL refines each snippet's configuration and adds the
            // jars it returns to the session (compiler and, through loadDependencies, the snippet's class loader).
            // Not default imports: `Repository` would then clash with Spring's once a snippet imports that.
            refineConfiguration {
                onAnnotations(libraries.annotations.map { KotlinType(it) }, handler = libraries::refine)
            }
        }
    }
    private val evaluationConfiguration = ScriptEvaluationConfiguration {
        // loadDependencies stays on: switching it off also drops the earlier snippets' classes (SnippetLoaders).
        jvm { baseClassLoader(snippetLoader) }
    }
    // The K2 REPL reports syntax errors here and, in some versions, compiles on regardless; the
    // driver reads this collector itself so such a snippet still fails as a compile error.
    private val messages = ScriptDiagnosticsMessageCollector(null)
    // The REPL's record of resolved snippets, the compiler's own default, held here so a check can roll it back.
    private val history = FirReplHistoryProviderImpl()
    private val hostConfiguration = ScriptingHostConfiguration(defaultJvmScriptingHostConfiguration) {
        repl {
            firReplHistoryProvider(history)
            isReplSnippetSource { _, _ -> true }
            // Ours, not one the REPL generates into the first snippet: each compile looks up the state object's
            // members, and the generated one has every member of HashMap (SnippetInstances says more).
            replStateObjectFqName(SnippetInstances::class.java.name)
        }
    }
    private val disposable = Disposer.newDisposable()
    private val state =
        K2ReplCompiler.createCompilationState(messages, disposable, compilationConfiguration, hostConfiguration)
    private val compiler = K2ReplCompiler(state)
    private val marks = CompilerMarks(state, history)

    init {
        ClassOnlyIrPasses.install(::compilerProject, disposable)
    }

    // The index compilations read earlier snippets from, or null where they walk the REPL's history.
    private val historyIndex = SnippetHistoryIndex.install(::compilerProject, history, hostConfiguration)
    // A shadowed class's module is let go where the index reads the history: it says which class a name means.
    private val modules = SnippetModuleChain(state, history, historyIndex)

    /** Whether compilations read earlier snippets from [SnippetHistoryIndex] (the worker's ready frame says). */
    fun historyIndexed(): Boolean = historyIndex != null

    private val evaluator = K2ReplEvaluator()
    private val loaders = SnippetLoaders()
    private val sessionLoader = SessionContextLoader(snippetLoader)
    // What snippets run with as the thread's context class loader; one a snippet sets stays for the next.
    @Volatile private var contextLoader: ClassLoader = sessionLoader

    private fun <T> withContextLoader(block: () -> T): T =
        runWithContextLoader(contextLoader, { contextLoader = it }, block)

    // Class directories added after the session started: a rebuild's new class files, which the compiler's index of
    // the project's output directories (read once) doesn't see. Snippets and checks compile against them from then on;
    // at run time the project's loader finds the classes in the output directories themselves.
    @Volatile private var addedRoots: List<File> = emptyList()

    /**
     * The REPL's state object's class file by binary name ([SnippetInstances]): an attached session's app defines it
     * with its first snippet's classes, whose loader is the parent of every later snippet's.
     */
    fun stateObjectClassFiles(): Map<String, ByteArray> {
        val type = SnippetInstances::class.java
        val bytes = type.getResourceAsStream("${type.simpleName}.class")?.use { it.readBytes() }
            ?: error("no class file of ${type.name} in the facade")
        return mapOf(type.name to bytes)
    }

    /** Adds class directories to what later snippets compile against. */
    fun addCompileRoots(paths: Array<String>) {
        addedRoots = addedRoots + paths.map(::File)
    }

    private fun withAddedRoots(configuration: ScriptCompilationConfiguration): ScriptCompilationConfiguration {
        val roots = addedRoots
        return if (roots.isEmpty()) configuration else ScriptCompilationConfiguration(configuration) { jvm { updateClasspath(roots) } }
    }

    /** The `@file:DependsOn` coordinates this session's snippets added, in order. */
    fun addedLibraries(): Array<String> = libraries?.added() ?: emptyArray()

    /** Whether the code asks for a library with `@file:DependsOn` or `@file:Repository`. */
    fun namesLibraries(code: String): Boolean = FILE_ANNOTATION.containsMatchIn(code)

    /** The `@file:Repository` URLs this session's snippets named, in order. */
    fun addedRepositories(): Array<String> = libraries?.repositories() ?: emptyArray()

    /**
     * Starts one snippet on its own thread so the caller can interrupt it or give up on it.
     * @param sourceName the snippet's file name, which names its classes; the worker's Python side numbers
     *   snippets and names their files (K2 snippet classes must be named `_<N>`, or class loading fails).
     */
    fun start(code: String, sourceName: String): RunningSnippet =
        RunningSnippet().also { running -> running.launch { evaluate(code, sourceName, running) } }

    /**
     * Compiles the code as the session's next snippet and keeps it in the REPL's history, without running it: an
     * attached session runs the compiled classes in the application's JVM (outcome.compiledScript).
     */
    fun compileOnly(code: String, sourceName: String): RunningSnippet =
        RunningSnippet().also { running -> running.launch { compileToRunElsewhere(code, sourceName) } }

    private fun compileToRunElsewhere(code: String, sourceName: String): SnippetOutcome {
        val outcome = SnippetOutcome()
        try {
            val linked = compileRun(code, sourceName, outcome) ?: return outcome
            outcome.compiled = true
            outcome.compiledScript = linked.get()
        } catch (t: Throwable) {
            outcome.internalError = t
        }
        return outcome
    }

    /**
     * Compiles the code as the session's next snippet would be compiled, reports its diagnostics and the type of its
     * last expression, and then takes back everything the compilation recorded (CompilerMarks): nothing runs and the
     * session is as it was. Libraries named with @file:DependsOn are not resolved (the annotations are blanked).
     * @param sourceName the name the next snippet would get, so diagnostics and types read as a run's would.
     */
    fun check(code: String, sourceName: String): RunningSnippet =
        RunningSnippet().also { running -> running.launch { checkSnippet(code, sourceName) } }

    private fun checkSnippet(code: String, sourceName: String): SnippetOutcome {
        val outcome = SnippetOutcome()
        // The REPL's script definition refines on @file:DependsOn whatever configuration a compilation is given: the
        // annotations are blanked (positions kept), so a check never adds a library.
        val code = if (libraries != null) withoutFileAnnotations(code) else code
        try {
            marks.untraced {
                val analysis = analysis
                val linked = if (analysis != null) {
                    analysis.beforeBackend { compile(code, sourceName, checkConfiguration, outcome) }
                } else {
                    compile(code, sourceName, checkConfiguration, outcome)
                } ?: return@untraced
                outcome.compiled = true
                outcome.valueType = linked.get().resultField?.second?.typeName
            }
        } catch (t: Throwable) {
            outcome.internalError = t
        }
        return outcome
    }

    /**
     * Compiles the code as a run would, JVM backend included, and takes the compilation back: nothing runs and the
     * session is as it was. An idle worker's throwaway compile, so that the compiler's own code is JIT-compiled before
     * the user's next snippets need it (worker/repl/idle_warm_up.py). Whatever it throws is the outcome's.
     */
    fun compileThrowaway(code: String, sourceName: String): RunningSnippet =
        RunningSnippet().also { running ->
            running.launch {
                try {
                    compileUntraced(code, sourceName)
                } catch (t: Throwable) {
                    SnippetOutcome().apply { internalError = t }
                }
            }
        }

    /**
     * Compiles the code as [check] does and takes the compilation back, for an add-on that reads the compiler's
     * analysis on the way (the completion add-on's FIR checker), and for [compileThrowaway]. Call it on a thread with
     * the compiler's stack ([onCompilerThread], a [RunningSnippet]'s).
     */
    fun compileUntraced(code: String, sourceName: String): SnippetOutcome {
        val outcome = SnippetOutcome()
        marks.untraced { outcome.compiled = compile(code, sourceName, checkConfiguration, outcome) != null }
        return outcome
    }

    /** An add-on that can end a check's compilation before the backend (the completion add-on, once loaded). */
    @Volatile var analysis: StopBeforeBackend? = null

    /** The collector the REPL reports diagnostics to; an add-on ending a compilation early flushes them here. */
    fun messageCollector(): ScriptDiagnosticsMessageCollector = messages

    /** The compiler's IntelliJ project, where compiler extensions are registered (an internal of the REPL state). */
    fun compilerProject(): Any {
        val context = state.javaClass.getMethod("getCompilerContext\$kotlin_scripting_compiler").invoke(state)
        val environment = context.javaClass.getMethod("getEnvironment").invoke(context)
        return environment.javaClass.getMethod("getProject").invoke(environment)
    }

    /** Runs [body] on a thread with the stack the compiler needs (see [RunningSnippet]) and returns its result. */
    fun <T> onCompilerThread(body: () -> T): T {
        var result: Result<T>? = null
        val thread = Thread(null, { result = runCatching(body) }, "repl-analysis", 256L shl 20).apply { isDaemon = true }
        thread.start()
        thread.join()
        return result!!.getOrThrow()
    }

    /** The compiled snippet, or null with the outcome's diagnostics saying why. */
    private fun compile(
        code: String, sourceName: String, configuration: ScriptCompilationConfiguration, outcome: SnippetOutcome,
    ): kotlin.script.experimental.util.LinkedSnippet<CompiledSnippet>? {
        val source = withReplSafeModifiers(if (libraries != null) qualifyFileAnnotations(code) else code).toScriptSource(sourceName)
        messages.clear()
        val compiled = try {
            runSuspend { compiler.compile(listOf(source), withAddedRoots(configuration)) }
        } catch (t: Throwable) {
            outcome.diagnostics = messages.diagnostics.toList()
            if (outcome.diagnostics.any { it.severity >= ScriptDiagnostic.Severity.ERROR }) return null
            // The compiler may wrap what an IR extension throws (2.3 does).
            val complete = generateSequence(t) { it.cause.takeIf { cause -> cause !== it } }.take(10).firstOrNull { it is AnalysisComplete }
            if (complete is AnalysisComplete) {
                outcome.compiled = true
                outcome.valueType = complete.valueType
                return null
            }
            throw t
        }
        outcome.diagnostics = (messages.diagnostics + compiled.reports).distinct()
        if (outcome.diagnostics.any { it.severity >= ScriptDiagnostic.Severity.ERROR }) return null
        return compiled.valueOrNull()
    }

    /** A run's compilation, which stays in the session's history; what only the compilation needed is let go. */
    private fun compileRun(code: String, sourceName: String, outcome: SnippetOutcome): kotlin.script.experimental.util.LinkedSnippet<CompiledSnippet>? {
        val before = modules.count()
        outcome.dependedModules = before ?: -1
        try {
            return compile(code, sourceName, compilationConfiguration, outcome)
        } finally {
            if (before != null) {
                marks.releaseBackends(since = before)
                modules.afterCompilation(before)
            }
        }
    }

    private fun evaluate(code: String, sourceName: String, running: RunningSnippet): SnippetOutcome {
        val outcome = SnippetOutcome()
        try {
            val compiling = System.nanoTime()
            val linked = compileRun(code, sourceName, outcome)
            outcome.compileNanos = System.nanoTime() - compiling
            if (linked == null) return outcome
            outcome.compiled = true
            val evaluating = System.nanoTime()
            var unkept: Throwable? = null
            val current = try {
                loaders.configurationFor(linked.get() as KJvmCompiledScript, evaluationConfiguration)
            } catch (t: Throwable) {
                // The evaluator's own way then, which reports what fails to load as the snippet's failure.
                unkept = t
                evaluationConfiguration
            }
            // Frameworks the snippet calls find its own classes through the thread's context loader too.
            sessionLoader.newest = loaders.newest ?: snippetLoader
            // Cancelled while compiling (the compiler can't be interrupted): it never runs, the session is intact. The
            // REPL's history keeps it, so later snippets compile against it: its classes are the session's, unrun
            // (the worker says so when they could not be).
            if (!running.beginEvaluation()) {
                outcome.cancelledBeforeEvaluation = true
                outcome.internalError = unkept
                return outcome
            }
            val evaluated = withContextLoader {
                try {
                    runSuspend { evaluator.eval(linked, current) }
                } catch (e: NullPointerException) {
                    evaluateMangledBody(linked, current, e) // Kotlin 2.2, a value-class value
                }
            }
            outcome.evaluateNanos = System.nanoTime() - evaluating
            outcome.diagnostics = outcome.diagnostics + evaluated.reports
            val result = evaluated.valueOrNull()?.get()?.result ?: return outcome
            outcome.result = result
            if (result is ResultValue.Value) {
                val rendering = System.nanoTime()
                try {
                    outcome.rendered = Renderer.render(boxedValueClass(result.value, result.type, result.scriptClass?.java))
                } catch (t: Throwable) {
                    outcome.renderError = t
                }
                outcome.renderNanos = System.nanoTime() - rendering
            }
        } catch (t: Throwable) {
            outcome.internalError = t
        }
        return outcome
    }
}

/**
 * Frameworks find classes and resources through the thread's context class loader (ServiceLoader,
 * Spring, Jackson's module discovery). Snippets run with it set to the session's loader — the
 * project's classes and resources and every snippet's classes so far — and threads they start
 * inherit it. The compiler runs without it, so the project's classpath can't leak into the compiler.
 */
private fun <T> runWithContextLoader(loader: ClassLoader, remember: (ClassLoader) -> Unit, block: () -> T): T {
    val thread = Thread.currentThread()
    val saved = thread.contextClassLoader
    thread.contextClassLoader = loader
    try {
        return block()
    } finally {
        remember(thread.contextClassLoader)
        thread.contextClassLoader = saved
    }
}

/**
 * Delegates to the newest snippet's class loader, which sees the project and every earlier snippet.
 * A class that isn't there is a ClassNotFoundException, as ClassLoader's contract says: libraries probe
 * for optional classes through the context loader (Spring Boot's auto-configuration, SLF4J, Jackson,
 * Netty) and treat anything else as a failure. The REPL's snippet loaders answer a missing class with
 * null, so the delegate's answer is never passed on as it is.
 */
class SessionContextLoader(project: ClassLoader) : ClassLoader(project) {
    @Volatile var newest: ClassLoader = project

    override fun loadClass(name: String, resolve: Boolean): Class<*> =
        newest.loadClass(name) as Class<*>? ?: throw ClassNotFoundException(name)
    override fun getResource(name: String): java.net.URL? = newest.getResource(name)
    /**
     * Each resource once: the REPL's snippet loaders sit on the project's loader and list the project classpath
     * again, so every project resource would be found twice (Spring's `classpath*:` scans, logback's "occurs
     * multiple times" warning, code counting service files).
     */
    override fun getResources(name: String): java.util.Enumeration<java.net.URL> {
        val seen = LinkedHashMap<String, java.net.URL>()
        for (url in newest.getResources(name)) seen.putIfAbsent(url.toExternalForm(), url)
        return java.util.Collections.enumeration(seen.values)
    }
}

/** A snippet running on its own daemon thread. */
class RunningSnippet {
    @Volatile var outcome: SnippetOutcome? = null
        private set
    @Volatile private var cancelRequested = false
    /** True once the snippet's code runs (compilation is over). */
    @Volatile var evaluating = false
        private set
    private lateinit var thread: Thread

    internal fun launch(body: () -> SnippetOutcome) {
        // The compiler recurses deeply on long expressions; a thread's default stack is too small.
        thread = Thread(null, { outcome = body() }, "repl-snippet", 256L shl 20).apply { isDaemon = true }
        thread.start()
    }

    /** Called between compiling and running; false when a cancel came first. */
    internal fun beginEvaluation(): Boolean {
        evaluating = true
        return !cancelRequested
    }

    /**
     * Stops the snippet: interrupts its code if it runs; during compilation (which interruption would
     * corrupt, not stop) it only marks it, and the snippet ends after compiling without running.
     * Each side writes its flag before reading the other's, so one of them always sees the cancel.
     */
    fun cancel() {
        cancelRequested = true
        if (evaluating) thread.interrupt()
    }

    fun join(millis: Long): Boolean {
        thread.join(millis)
        return !thread.isAlive
    }

    /** Where the snippet's thread is now, for the worker log when it won't stop. */
    fun stack(): String = thread.stackTrace.joinToString("\n") { "    at $it" }
}

private val FILE_ANNOTATION = Regex("""^(\s*@file\s*:\s*)(DependsOn|Repository)\b""", RegexOption.MULTILINE)

/** The code with each `@file:DependsOn(…)`/`@file:Repository(…)` blanked to spaces (line breaks kept). */
private fun withoutFileAnnotations(code: String): String {
    val chars = code.toCharArray()
    for (match in FILE_ANNOTATION.findAll(code)) {
        var end = match.range.last + 1
        while (end < code.length && code[end].isWhitespace()) end++
        if (end < code.length && code[end] == '(') {
            var depth = 0
            while (end < code.length) {
                if (code[end] == '(') depth++
                if (code[end] == ')' && --depth == 0) break
                end++
            }
        }
        for (k in match.range.first..minOf(end, code.length - 1)) if (chars[k] != '\n') chars[k] = ' '
    }
    return String(chars)
}

/** `@file:DependsOn(…)` as written, resolved without importing the annotation into every snippet. */
private fun qualifyFileAnnotations(code: String): String =
    FILE_ANNOTATION.replace(code) { "${it.groupValues[1]}kotlin.script.experimental.dependencies.${it.groupValues[2]}" }

/** Drives a suspend function that never really suspends (the REPL API's compile/eval). */
fun <T> runSuspend(block: suspend () -> T): T {
    var result: Result<T>? = null
    block.startCoroutine(Continuation(EmptyCoroutineContext) { result = it })
    return result!!.getOrThrow()
}

/**
 * A snippet whose value is of a value class hands the REPL the unboxed representation (a Duration as its Long): boxed
 * again, it reads as the program would show it (`5s`). The rule both JVM sides share (SnippetBody.boxed).
 */
internal fun boxedValueClass(value: Any?, typeName: String, snippetClass: Class<*>?): Any? = SnippetBody.boxed(value, typeName, snippetClass)

/** Runs a compilation that ends with [AnalysisComplete] once analysed (see [ReplDriver.analysis]). */
interface StopBeforeBackend {
    fun <T> beforeBackend(compilation: () -> T): T
}
