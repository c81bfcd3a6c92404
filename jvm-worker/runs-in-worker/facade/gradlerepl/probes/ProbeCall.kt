package gradlerepl.probes

import gradlerepl.both.ProbeCodes
import gradlerepl.both.ProbeRun
import gradlerepl.both.ProbeValues
import java.lang.instrument.ClassFileTransformer
import java.lang.instrument.Instrumentation
import java.security.ProtectionDomain
import java.util.Collections
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * The probes of one call, or one probe of a session (add_kotlin_probe), in this JVM: each set at its sites with a
 * class file transformer, so a class loaded later gets it too, and taken out by retransforming without it — the JVM
 * goes back to the class's own bytes. What a probe records at a hit is [ProbeRun]'s, shared with an attached app.
 */
class ProbeCall(
    private val instrumentation: Instrumentation,
    valueLimit: Int,
    outlivesCall: Boolean,
) : ClassFileTransformer {
    /**
     * The probes as they run: their hits, notes and expiry. A probe past its maxHits records nothing more at once; a
     * call's keeps its call in its classes until they are taken out after the call's reply (close), a session's is
     * taken out now. Retransforming
     * while the probed method runs leaves that run's frame without line numbers in stack traces ("Unknown Source"),
     * so a call's own code is never retransformed under it.
     */
    val run = ProbeRun(valueLimit) { classes -> if (outlivesCall) RETRANSFORMER.execute { retransform(classes) } }
    private val sitesByClass = ConcurrentHashMap<String, MutableList<ProbeRun.Site>>()
    // The probed classes loaded so far: found by the one scan of every loaded class when the probes are set (arm), and
    // as they load after; taking the probes out retransforms these without scanning again (a test session's JVM holds
    // tens of thousands of classes, the compiler's among them).
    private val probedClasses: MutableSet<Class<*>> = Collections.newSetFromMap(ConcurrentHashMap())
    // Classes that loaded after the probes were set, by name and loader: made Class objects when they are taken out.
    private val loadedLater: MutableSet<Pair<String, ClassLoader?>> = Collections.newSetFromMap(ConcurrentHashMap())
    // Where the probed classes load afresh, for this call only (a failed test's rerun, RerunLoader): those get their
    // probes as they load, are never retransformed, and go with the loader.
    private var afresh: RerunLoader? = null

    /** The classes [loader] loads afresh get the probes as they load: [arm] retransforms only the others. */
    fun loadsAfresh(loader: RerunLoader) {
        afresh = loader
    }

    /** Adds a probe; [codes] holds each site's compiled `when`/`capture` class (null: none, or it did not compile). */
    fun add(
        index: Int,
        maxHits: Int,
        line: Int,
        lastLine: Int,
        hasWhen: Boolean,
        captureCount: Int,
        noLocalNames: Boolean,
        sites: Array<ProbeSite>,
        codes: Array<ByteArray?>,
    ) {
        val probe = run.addProbe(index, maxHits, line, lastLine, hasWhen, captureCount, noLocalNames)
        for ((position, site) in sites.withIndex()) {
            val code = codes[position]
            val active = run.addSite(
                probe,
                nextSite.incrementAndGet(),
                site.className,
                site.method,
                site.locals.map { it.name }.toTypedArray(),
                site.locals.map { ProbeTypes.shownType(it) }.toTypedArray(),
                code,
                code?.let { ProbeClassBytes.door(ProbeCodes.doorName(site.className)) },
                site,
            )
            sitesByClass.computeIfAbsent(site.className.replace('.', '/')) { Collections.synchronizedList(ArrayList()) }.add(active)
        }
    }

    /** Sets every probe: in the classes loaded now, and in those that load later. Null when set, else why not. */
    fun arm(): String? {
        if (!instrumentation.isRetransformClassesSupported) return "this JVM can't retransform classes"
        // A take-out under way ends first: never during this call, under code it runs. One still queued waits for this
        // call's reply: a class this call probes too is retransformed here without the ended call's probe anyway.
        RETRANSFORMER.submit {}.get()
        run.arm()
        instrumentation.addTransformer(this, true)
        val names = run.classNames().filterNot { afresh?.loadsAfresh(it) == true }.toSet()
        if (names.isEmpty()) return null
        instrumentation.allLoadedClasses.filterTo(probedClasses) { it.name in names }
        val failure = retransform(names)
        if (failure != null) close()
        return failure
    }

    /**
     * Takes every probe out: from now on nothing is recorded (their sites are gone from the hook), and the classes go
     * back to their own bytes at the next [takeOutEnded] — which the worker calls once the call's reply is out: a
     * retransform holds every thread of this JVM at a safepoint for tens of ms (the whole code cache and every loaded
     * class are walked), and the reply's own reads from this JVM would wait for it. Safe to call twice.
     */
    fun close() {
        if (!run.disarm()) return
        instrumentation.removeTransformer(this)
        ENDED.add(this)
    }

    override fun transform(
        loader: ClassLoader?,
        className: String?,
        classBeingRedefined: Class<*>?,
        protectionDomain: ProtectionDomain?,
        classfileBuffer: ByteArray,
    ): ByteArray? {
        val candidates = sitesByClass[className ?: return null] ?: return null
        if (classBeingRedefined != null) {
            probedClasses.add(classBeingRedefined)
        } else if (afresh == null || loader !== afresh) {
            loadedLater.add(className to loader)
        }
        return try {
            val live = synchronized(candidates) { candidates.filter { !it.probe.done } }
            if (live.isEmpty()) return null
            val now = ProbeClassFiles.ofBytes(classfileBuffer)
            val placed = HashMap<Int, ProbeSite>()
            for (active in live) {
                val site = active.place as ProbeSite
                val found = now.sites(active.probe.line, active.probe.lastLine).firstOrNull { it.sameAs(site) }
                if (found == null) {
                    run.note(
                        "probe ${active.probe.index} was taken out of ${active.method}: an edit changed the " +
                            "method's locals at line ${active.probe.line}, which its `when` and `capture` were compiled for",
                    )
                    active.probe.done = true
                } else {
                    placed[active.id] = found
                }
            }
            ProbeInstrumenter.instrument(classfileBuffer, placed, ProbeInstrumenter.HOOK)
        } catch (thrown: Throwable) {
            run.note("a probe could not be set in ${className.replace('/', '.')}: ${ProbeValues.thrown(thrown)}")
            null
        }
    }

    private fun retransform(classNames: Set<String>): String? {
        val loaded = loadedClasses().filter {
            it.name in classNames && it.classLoader !== afresh && instrumentation.isModifiableClass(it)
        }
        if (loaded.isEmpty()) return null
        return try {
            instrumentation.retransformClasses(*loaded.toTypedArray())
            null
        } catch (thrown: Throwable) {
            "the JVM refused the probed classes (${ProbeValues.thrown(thrown)})"
        }
    }

    /** The probed classes loaded now: those the scan when they were set found, and those that loaded since. */
    private fun loadedClasses(): Collection<Class<*>> {
        for (later in loadedLater) {
            try {
                probedClasses.add(Class.forName(later.first.replace('/', '.'), false, later.second))
            } catch (e: Throwable) {
                // defined and gone again (its loader dropped): nothing to take the probe out of
            }
            loadedLater.remove(later)
        }
        return probedClasses
    }

    companion object {
        private val nextSite = AtomicInteger()
        // Calls closed whose classes still run their probed bytes (inert: every site's probe is done).
        private val ENDED = ConcurrentLinkedQueue<ProbeCall>()

        /**
         * The classes of every call closed so far go back to their own bytes, on the probes' own thread; returns when
         * they have, so no code of a next call runs under the retransform.
         */
        @JvmStatic
        fun takeOutEnded() {
            var any = false
            while (true) {
                val ended = ENDED.poll() ?: break
                RETRANSFORMER.execute { ended.retransform(ended.run.classNames()) }
                any = true
            }
            if (any) RETRANSFORMER.submit {}.get()
        }

        // Where classes are retransformed when a probe ends on its own or a call's probes are taken out: one thread
        // for every call's probes, so two takes-out never retransform at once.
        private val RETRANSFORMER = Executors.newSingleThreadExecutor { r ->
            // Made from whichever thread first retires a probe (a snippet's, a test's): it keeps none of its loaders.
            Thread(r, "gradle-repl probes").apply { isDaemon = true; contextClassLoader = null }
        }
    }
}
