package gradlerepl.junit

import java.io.ByteArrayOutputStream
import java.io.File
import java.io.OutputStream
import java.io.PrintStream
import java.lang.reflect.Modifier
import java.util.concurrent.ConcurrentLinkedQueue
import org.junit.platform.engine.DiscoverySelector
import org.junit.platform.engine.TestExecutionResult
import org.junit.platform.engine.discovery.ClassNameFilter
import org.junit.platform.engine.discovery.DiscoverySelectors
import org.junit.platform.launcher.TagFilter
import org.junit.platform.launcher.TestExecutionListener
import org.junit.platform.launcher.TestIdentifier
import org.junit.platform.launcher.TestPlan
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder
import org.junit.platform.launcher.core.LauncherFactory
import org.junit.platform.engine.support.descriptor.ClassSource
import org.junit.platform.engine.support.descriptor.MethodSource

/**
 * One test of the session's last run that failed, with its exception: what [lastTestFailures] holds, so a snippet can
 * look at the very objects a failing assertion saw (`lastTestFailures.first().exception`).
 */
class TestFailure(
    /** The test as a selector names it: `shop.CartTest.discount`, or a container (`shop.CartTest`) that failed whole. */
    val test: String,
    /** Its display name (a parameterized invocation's `[2] 3`, a nested class's, a dynamic test's). */
    val displayName: String,
    /** What the test threw (an AssertionError, an opentest4j AssertionFailedError, anything else); null if nothing. */
    val exception: Throwable?,
    /** What the test printed on System.out and System.err while it ran. */
    val output: String,
    internal val uniqueId: String,
) {
    override fun toString(): String = "$test ($displayName): $exception"
}

/** The failures of the session's last test run (empty before the first run, and after a run where nothing failed). */
val lastTestFailures: List<TestFailure> get() = TestRuns.lastFailures

/** Runs the project's tests through the JUnit Platform Launcher in the session's class loader; driven from Python. */
object TestRuns {
    @Volatile
    @JvmStatic
    var lastFailures: List<TestFailure> = emptyList()
        internal set

    /**
     * Starts a run on a thread of its own. `selectors`: classes, methods (`Class.method`, `Class#method`) and packages
     * (`shop.*`), none = every test under `roots`. `includes`/`excludes`: class-name regular expressions a run of every
     * test obeys; `includeTags`/`excludeTags`: tag expressions every run obeys. `failedOnly` runs the last run's
     * failures again (by their unique ids).
     */
    @JvmStatic
    fun start(
        selectors: Array<String>, roots: Array<String>, includes: Array<String>, excludes: Array<String>,
        includeTags: Array<String>, excludeTags: Array<String>, failedOnly: Boolean, outputLimit: Int, loader: ClassLoader,
    ): TestRun {
        val run = TestRun(outputLimit)
        run.launch(loader) {
            val request = LauncherDiscoveryRequestBuilder.request()
            if (failedOnly) {
                val ids = lastFailures.map { it.uniqueId }
                if (ids.isEmpty()) return@launch run.refuse("the last run had no failures to run again")
                request.selectors(ids.map { DiscoverySelectors.selectUniqueId(it) })
            } else if (selectors.isEmpty()) {
                request.selectors(DiscoverySelectors.selectClasspathRoots(roots.map { File(it).toPath() }.toSet()))
                if (includes.isNotEmpty()) request.filters(ClassNameFilter.includeClassNamePatterns(*includes))
                if (excludes.isNotEmpty()) request.filters(ClassNameFilter.excludeClassNamePatterns(*excludes))
            } else {
                val chosen = ArrayList<DiscoverySelector>()
                for (selector in selectors) {
                    val found = select(selector, loader) ?: return@launch run.refuse(
                        "no test class, method or package named '$selector' in this session (a class `shop.CartTest`, " +
                            "a method `shop.CartTest.oneItem`, a package `shop.*`)"
                    )
                    chosen += found
                }
                request.selectors(chosen)
            }
            if (includeTags.isNotEmpty()) request.filters(TagFilter.includeTags(*includeTags))
            if (excludeTags.isNotEmpty()) request.filters(TagFilter.excludeTags(*excludeTags))
            val launcher = LauncherFactory.create()
            val plan = launcher.discover(request.build())
            run.total = plan.countTestIdentifiers { it.isTest }.toInt()
            launcher.execute(plan, run.listener)
            lastFailures = run.failures.toList()
        }
        return run
    }

    private fun select(selector: String, loader: ClassLoader): List<DiscoverySelector>? {
        val name = selector.trim()
        if (name.endsWith(".*")) return listOf(DiscoverySelectors.selectPackage(name.removeSuffix(".*")))
        if (name.endsWith("*")) return listOf(DiscoverySelectors.selectPackage(name.removeSuffix("*").removeSuffix(".")))
        if (name.contains('#')) {
            val type = load(name.substringBefore('#'), loader) ?: return null
            return methods(type, name.substringAfter('#'))
        }
        load(name, loader)?.let { return listOf(DiscoverySelectors.selectClass(it)) }
        if (!name.contains('.')) return null
        val type = load(name.substringBeforeLast('.'), loader) ?: return null
        return methods(type, name.substringAfterLast('.'))
    }

    /** Every method of that name in the class and its superclasses (a parameterized test takes arguments). */
    private fun methods(type: Class<*>, method: String): List<DiscoverySelector>? {
        val found = generateSequence(type) { it.superclass }.flatMap { it.declaredMethods.asSequence() }
            .filter { it.name == method && !Modifier.isPrivate(it.modifiers) }.toList()
        return found.map { DiscoverySelectors.selectMethod(type, it) }.ifEmpty { null }
    }

    /** The class of that name, trying `Outer$Nested` for each dot from the right (`shop.CartTest.Empty`). */
    private fun load(name: String, loader: ClassLoader): Class<*>? {
        var candidate = name
        while (true) {
            try {
                return Class.forName(candidate, false, loader)
            } catch (_: ClassNotFoundException) {
            } catch (_: LinkageError) {
            }
            val dot = candidate.lastIndexOf('.')
            if (dot < 0) return null
            candidate = candidate.substring(0, dot) + "$" + candidate.substring(dot + 1)
        }
    }
}

/** A test run on its own thread: Python polls it (join, progress), cancels it, and reads its outcome when it ends. */
class TestRun internal constructor(private val outputLimit: Int) {
    @Volatile var total = 0
        internal set
    @Volatile var passed = 0
        private set
    @Volatile var skipped = 0
        private set
    @Volatile var aborted = 0
        private set
    /** Why nothing ran (a selector that names nothing); null when the run went ahead. */
    @Volatile var refusal: String? = null
        private set
    /** What broke the runner itself (not a test's failure); null when nothing did. */
    @Volatile var internalError: Throwable? = null
        private set
    @Volatile private var cancelRequested = false
    internal val failures = ConcurrentLinkedQueue<TestFailure>()
    private val finished = ConcurrentLinkedQueue<String>()
    private lateinit var thread: Thread
    private val captured = HashMap<String, Capture>()
    private val running = ArrayList<Capture>()

    val failed: Int get() = failures.size

    /** The failures so far, in the order they happened. */
    fun failureList(): Array<TestFailure> = failures.toTypedArray()

    /** The tests finished since the last call, each `done/total name`, oldest first. */
    fun drainFinished(): Array<String> {
        val out = ArrayList<String>()
        while (true) out += finished.poll() ?: break
        return out.toTypedArray()
    }

    internal fun refuse(why: String) {
        refusal = why
    }

    internal fun launch(loader: ClassLoader, body: () -> Unit) {
        thread = Thread(null, {
            val out = System.out
            val err = System.err
            System.setOut(PrintStream(Routed(out), true, "UTF-8"))
            System.setErr(PrintStream(Routed(err), true, "UTF-8"))
            try {
                body()
            } catch (e: Throwable) {
                internalError = e
            } finally {
                System.setOut(out)
                System.setErr(err)
            }
        }, "repl-tests", 256L shl 20).apply {
            isDaemon = true
            contextClassLoader = loader // the launcher finds the engines through it, as a test JVM's would
        }
        thread.start()
    }

    /** Interrupts the running test; a later test of a stopped run starts interrupted too. */
    fun cancel() {
        cancelRequested = true
        thread.interrupt()
    }

    /** Ends a test that ignored interruption where the JDK still can (Thread.stop, gone from JDK 20 on). */
    @Suppress("DEPRECATION")
    fun forceStop(): Boolean = try {
        thread.stop()
        true
    } catch (e: UnsupportedOperationException) {
        false
    }

    fun join(millis: Long): Boolean {
        thread.join(millis)
        return !thread.isAlive
    }

    val cancelled: Boolean get() = cancelRequested

    fun stack(): String = thread.stackTrace.joinToString("\n") { "    at $it" }

    internal val listener = object : TestExecutionListener {
        private var plan: TestPlan? = null
        private var done = 0

        override fun testPlanExecutionStarted(testPlan: TestPlan) {
            plan = testPlan
        }

        override fun dynamicTestRegistered(testIdentifier: TestIdentifier) {
            if (testIdentifier.isTest) total++
        }

        override fun executionStarted(testIdentifier: TestIdentifier) {
            if (cancelRequested) Thread.currentThread().interrupt()
            val capture = Capture(outputLimit)
            synchronized(captured) {
                captured[testIdentifier.uniqueId] = capture
                running += capture
            }
        }

        override fun executionSkipped(testIdentifier: TestIdentifier, reason: String) {
            val tests = plan?.getDescendants(testIdentifier)?.count { it.isTest } ?: 0
            val count = if (testIdentifier.isTest) 1 else tests
            skipped += count
            done += count
            finished += "$done/$total ${name(testIdentifier)} skipped"
        }

        override fun executionFinished(testIdentifier: TestIdentifier, result: TestExecutionResult) {
            val capture = synchronized(captured) {
                captured.remove(testIdentifier.uniqueId)?.also { running.remove(it) }
            }
            when (result.status) {
                TestExecutionResult.Status.SUCCESSFUL -> if (testIdentifier.isTest) passed++
                TestExecutionResult.Status.ABORTED -> if (testIdentifier.isTest) aborted++
                else -> failures += TestFailure(
                    name(testIdentifier), testIdentifier.displayName, result.throwable.orElse(null),
                    capture?.text() ?: "", testIdentifier.uniqueId,
                )
            }
            if (testIdentifier.isTest) {
                done++
                finished += "$done/$total ${name(testIdentifier)}"
            }
        }

        /** A test as selectors name it: `shop.CartTest.oneItem`; a nested class's test `shop.CartTest.Empty.total`. */
        private fun name(identifier: TestIdentifier): String {
            val source = identifier.source.orElse(null)
            val test = when (source) {
                is MethodSource -> "${source.className.replace('$', '.')}.${source.methodName}"
                is ClassSource -> source.className.replace('$', '.')
                else -> identifier.displayName
            }
            // A dynamic test or an invocation has its factory's or template's source: its display name tells it apart.
            val own = identifier.uniqueId.contains("dynamic-test") || identifier.uniqueId.contains("invocation:")
            // JUnit 4's Parameterized (through the vintage engine) names each case `method[name]`: keep its `[name]`.
            val case = (source as? MethodSource)?.methodName?.let { identifier.displayName.removePrefix(it) }
            return when {
                own && source != null -> "$test[${identifier.displayName}]"
                case != null && case.startsWith("[") && case.endsWith("]") -> "$test$case"
                else -> test
            }
        }
    }

    /** System.out/err while the run lasts: each write goes to the innermost test or container running. */
    private inner class Routed(private val original: OutputStream) : OutputStream() {
        override fun write(b: Int) = write(byteArrayOf(b.toByte()), 0, 1)
        override fun write(b: ByteArray, off: Int, len: Int) {
            val target = synchronized(captured) { running.lastOrNull() }
            if (target != null) target.write(b, off, len) else original.write(b, off, len)
        }
    }

    /** One test's printed output, kept up to its limit; what is cut is counted. */
    private class Capture(private val limit: Int) {
        private val bytes = ByteArrayOutputStream()
        private var cut = 0L

        @Synchronized
        fun write(b: ByteArray, off: Int, len: Int) {
            val kept = minOf(len, maxOf(0, limit - bytes.size()))
            bytes.write(b, off, kept)
            cut += len - kept
        }

        @Synchronized
        fun text(): String {
            val text = bytes.toString("UTF-8")
            return if (cut > 0) "$text\n… ($cut more bytes of output cut)" else text
        }
    }
}
