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
     * test obeys; `includeTags`/`excludeTags`: tag expressions every run obeys. `knownFailing`: the unique ids of the
     * tests known to fail (see [KnownFailures]), which `failedOnly` runs again, those of them the selection holds.
     */
    @JvmStatic
    fun start(
        selectors: Array<String>, roots: Array<String>, includes: Array<String>, excludes: Array<String>,
        includeTags: Array<String>, excludeTags: Array<String>, failedOnly: Boolean, knownFailing: Array<String>,
        outputLimit: Int, loader: ClassLoader,
    ): TestRun {
        val run = TestRun(outputLimit, KnownFailures(knownFailing))
        run.launch(loader) {
            val selection = LauncherDiscoveryRequestBuilder.request()
            if (selectors.isEmpty()) {
                selection.selectors(DiscoverySelectors.selectClasspathRoots(roots.map { File(it).toPath() }.toSet()))
                if (includes.isNotEmpty()) selection.filters(ClassNameFilter.includeClassNamePatterns(*includes))
                if (excludes.isNotEmpty()) selection.filters(ClassNameFilter.excludeClassNamePatterns(*excludes))
            } else {
                val chosen = ArrayList<DiscoverySelector>()
                for (selector in selectors) {
                    val found = select(selector, loader) ?: return@launch run.refuse(
                        "no test class, method or package named '$selector' in this session (a class `shop.CartTest`, " +
                            "a method `shop.CartTest.oneItem`, a package `shop.*`)"
                    )
                    chosen += found
                }
                selection.selectors(chosen)
            }
            fun LauncherDiscoveryRequestBuilder.tagged() = apply {
                if (includeTags.isNotEmpty()) filters(TagFilter.includeTags(*includeTags))
                if (excludeTags.isNotEmpty()) filters(TagFilter.excludeTags(*excludeTags))
            }
            val launcher = LauncherFactory.create()
            var plan = launcher.discover(selection.tagged().build())
            if (failedOnly) {
                val rerun = run.known.rerun(plan, wholeRun = selectors.isEmpty(), what = if (selectors.isEmpty()) "every test" else "the tests named")
                run.notes += rerun.notes
                if (rerun.ids.isNotEmpty()) {
                    val known = LauncherDiscoveryRequestBuilder.request().selectors(rerun.ids.map { DiscoverySelectors.selectUniqueId(it) })
                    plan = launcher.discover(known.tagged().build())
                }
            }
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

/**
 * The tests known to fail in a session, by JUnit unique id: a test that failed stays known until a run sees it pass (or
 * skipped, or aborted), whatever narrower runs came between — as pytest's --last-failed and IntelliJ's "rerun failed
 * tests" keep them; one whose class or method no longer exists drops out, said. The session (the host) keeps the set
 * across its JVMs: a restart the edit that fixes a test forces doesn't forget what was failing.
 */
class KnownFailures(ids: Array<String>) {
    private val ids = LinkedHashSet(ids.toList())

    /**
     * What a failed-only run reruns: the known failures the selection's plan holds — a test discovery lists, or the
     * test template or factory above an invocation or a dynamic test, which only run time lists — and what to tell of
     * the choice. A run of every test drops the known failures its plan doesn't hold: their class or method is gone.
     */
    internal fun rerun(selection: TestPlan, wholeRun: Boolean, what: String): Rerun {
        val planned = HashSet<String>()
        fun collect(identifier: TestIdentifier) {
            planned += identifier.uniqueId
            selection.getChildren(identifier).forEach(::collect)
        }
        selection.roots.forEach(::collect)
        val chosen = ids.filter { discovered(it) in planned }
        val notes = ArrayList<String>()
        val gone = if (wholeRun) ids.filter { it !in chosen } else emptyList()
        if (gone.isNotEmpty()) {
            ids.removeAll(gone.toSet())
            notes += "${named(gone)}: no longer among the tests (renamed, deleted or excluded), no longer known to fail"
        }
        if (chosen.isEmpty()) {
            notes += if (ids.isEmpty()) "no test is known to fail: ran $what"
            else "none of the ${ids.size} test(s) known to fail (${named(ids.toList())}) is among the tests named: ran them all"
            return Rerun(emptyList(), notes)
        }
        notes += "ran the ${chosen.size} test(s) known to fail: ${named(chosen)}"
        return Rerun(chosen, notes)
    }

    internal fun failed(id: String) {
        ids += id
    }

    internal fun passed(id: String) {
        ids -= id
    }

    /** A skipped container skips everything below it. */
    internal fun skipped(id: String) {
        ids.removeIf { it == id || it.startsWith("$id/") }
    }

    fun toArray(): Array<String> = ids.toTypedArray()

    internal class Rerun(val ids: List<String>, val notes: List<String>)

    companion object {
        private const val NAMED = 3

        /** The part of a unique id discovery lists: without its trailing invocations and dynamic tests. */
        internal fun discovered(id: String): String {
            var part = id
            while (true) {
                val at = part.lastIndexOf("]/[")
                if (at < 0) return part
                val type = part.substring(at + 3).substringBefore(':')
                if ("invocation" !in type && "dynamic" !in type) return part
                part = part.substring(0, at + 1)
            }
        }

        /** A unique id as selectors name tests: `shop.CartTest.oneItem`, an invocation `shop.CartTest.sums[#2]`. */
        fun readable(id: String): String {
            val segments = Regex("""\[([^:\]]+):((?:[^\]]|\](?!/\[))*)\]""").findAll(id).map { it.groupValues[1] to it.groupValues[2] }.drop(1)
            val out = StringBuilder()
            for ((type, value) in segments) {
                when {
                    type.contains("class") || type == "runner" -> {
                        out.setLength(0)  // a nested class's value is its whole binary name
                        out.append(value.replace('$', '.'))
                    }
                    type.contains("invocation") || type.contains("dynamic") -> out.append("[").append(value).append("]")
                    else -> out.append(".").append(value.substringBefore('('))
                }
            }
            return out.toString().ifEmpty { id }
        }

        fun named(ids: List<String>): String =
            ids.take(NAMED).joinToString(", ", transform = ::readable) + if (ids.size > NAMED) " and ${ids.size - NAMED} more" else ""
    }
}

/** A test run on its own thread: Python polls it (join, progress), cancels it, and reads its outcome when it ends. */
class TestRun internal constructor(private val outputLimit: Int, internal val known: KnownFailures) {
    /** What the run tells besides its counts: which known failures it ran, which dropped out. */
    internal val notes = ArrayList<String>()
    fun notes(): Array<String> = notes.toTypedArray()

    /** The tests known to fail after this run, by unique id, for the session to hand to its next run. */
    fun knownFailing(): Array<String> = known.toArray()

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
            known.skipped(testIdentifier.uniqueId)
            skipped += count
            done += count
            finished += "$done/$total ${name(testIdentifier)} skipped"
        }

        override fun executionFinished(testIdentifier: TestIdentifier, result: TestExecutionResult) {
            val capture = synchronized(captured) {
                captured.remove(testIdentifier.uniqueId)?.also { running.remove(it) }
            }
            if (result.status == TestExecutionResult.Status.FAILED) known.failed(testIdentifier.uniqueId) else known.passed(testIdentifier.uniqueId)
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
