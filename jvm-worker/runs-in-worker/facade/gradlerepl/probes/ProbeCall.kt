package gradlerepl.probes

import java.lang.instrument.ClassFileTransformer
import java.lang.instrument.Instrumentation
import java.security.ProtectionDomain
import java.util.Collections
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/** One hit, as worker/probes/hits.py reads it. Values are already text, capped, as they were at the hit. */
class ProbeHitRecord(
    @JvmField val probe: Int,
    @JvmField val hit: Int,
    @JvmField val thread: String,
    @JvmField val stack: Array<StackTraceElement>,
    @JvmField val localNames: Array<String>,
    @JvmField val localTypes: Array<String>,
    @JvmField val localValues: Array<ProbeText>,
    @JvmField val self: ProbeText?,
    @JvmField val captured: Array<ProbeText>,
    @JvmField val capturedTypes: Array<String?>,
    @JvmField val whenError: String?,
    @JvmField val noLocalNames: Boolean,
)

/**
 * The probes of one call, or one probe of a session (add_kotlin_probe): each set at its sites with a class file
 * transformer, so a class loaded later gets it too, and taken out by retransforming without it — the JVM goes back to
 * the class's own bytes. No thread is ever stopped.
 */
class ProbeCall(
    private val instrumentation: Instrumentation,
    private val valueLimit: Int,
) : ClassFileTransformer {

    /** One probe: where it is, how often it may fire, what it records. */
    inner class Probe(
        val index: Int,
        val maxHits: Int,
        val line: Int,
        val lastLine: Int,
        val hasWhen: Boolean,
        val captureCount: Int,
        val noLocalNames: Boolean,
    ) {
        val hits = AtomicInteger()
        @Volatile var done = false
        val sites = ArrayList<ActiveSite>()

        fun retire() {
            done = true
            retransformer.execute { retransform(sites.map { it.site.className }.toSet()) }
        }
    }

    /** A probe at one site: its compiled `when` and `capture`, defined in each class that has the site. */
    inner class ActiveSite(val id: Int, val probe: Probe, val site: ProbeSite, private val code: ByteArray?) {
        private val defined = ConcurrentHashMap<Class<*>, Any>()
        // The last class's code, read without a map lookup on the path every pass of the line takes; one object, so a
        // thread never reads one class with another's code.
        @Volatile private var last: Pair<Class<*>, Any?>? = null

        fun hit(owner: Class<*>, self: Any?, locals: Array<Any?>) {
            if (probe.done) return
            if (expiresAt != 0L && System.nanoTime() - expiresAt > 0) {
                probe.retire()
                return
            }
            val compiled = codeFor(owner)
            var whenError: String? = null
            if (probe.hasWhen) {
                when (compiled) {
                    is ProbeCode -> try {
                        if (!compiled.holds(self, locals)) return
                    } catch (thrown: Throwable) {
                        whenError = ProbeValues.thrown(thrown)
                    }
                    else -> whenError = compiled.toString()
                }
            }
            val hit = probe.hits.incrementAndGet()
            if (hit > probe.maxHits) return
            val captured = Array(probe.captureCount) { index ->
                when (compiled) {
                    is ProbeCode -> try {
                        val value = compiled.capture(index, self, locals)
                        ProbeValues.text(value, valueLimit) to ProbeValues.typeOf(value)
                    } catch (thrown: Throwable) {
                        ProbeText.error(ProbeValues.thrown(thrown)) to null
                    }
                    else -> ProbeText.error(compiled.toString()) to null
                }
            }
            hits.add(
                ProbeHitRecord(
                    probe.index,
                    hit,
                    Thread.currentThread().name,
                    callerStack(),
                    site.locals.map { it.name }.toTypedArray(),
                    site.locals.map { ProbeTypes.shownType(it) }.toTypedArray(),
                    Array(locals.size) { ProbeValues.text(locals[it], valueLimit) },
                    if (self != null) ProbeValues.text(self, valueLimit) else null,
                    captured.map { it.first }.toTypedArray(),
                    captured.map { it.second }.toTypedArray(),
                    whenError,
                    probe.noLocalNames,
                ),
            )
            if (hit >= probe.maxHits) probe.retire()
        }

        /** The site's code defined in [owner]'s nest (once per class), or why it could not be. */
        private fun codeFor(owner: Class<*>): Any? {
            val bytes = code ?: return null
            last?.let { if (it.first === owner) return it.second }
            return defined.computeIfAbsent(owner) {
                try {
                    ProbeCodeDefinition.define(owner, bytes)
                } catch (thrown: Throwable) {
                    "the probe's code could not be defined in ${owner.name}: ${ProbeValues.thrown(thrown)}"
                }
            }.also { last = owner to it }
        }
    }

    private val probes = ArrayList<Probe>()
    private val sitesByClass = ConcurrentHashMap<String, MutableList<ActiveSite>>()
    private val hits: MutableList<ProbeHitRecord> = Collections.synchronizedList(ArrayList())
    private val notes: MutableList<String> = Collections.synchronizedList(ArrayList())
    private val retransformer = Executors.newSingleThreadExecutor { r -> Thread(r, "gradle-repl probes").apply { isDaemon = true } }
    @Volatile private var armed = false
    // When a probe that outlives its call (add_kotlin_probe) takes itself out: System.nanoTime(); 0 for never.
    @Volatile private var expiresAt = 0L

    /** The probes end themselves [seconds] from now (a session's probe: expiresSeconds). */
    fun expireIn(seconds: Double) {
        expiresAt = System.nanoTime() + (seconds * 1e9).toLong()
    }

    /** The hits recorded since the last drain, in order; they are gone from here. */
    fun drainHits(): Array<ProbeHitRecord> = synchronized(hits) {
        val drained = hits.toTypedArray()
        hits.clear()
        drained
    }

    /** How often each probe fired (up to its maxHits), by index. */
    fun hitCounts(): IntArray = probes.map { minOf(it.hits.get(), it.maxHits) }.toIntArray()

    /** Whether each probe is still in the code (not past its maxHits, its expiry, or taken out). */
    fun activity(): BooleanArray = probes.map { !it.done && armed }.toBooleanArray()

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
        val probe = Probe(index, maxHits, line, lastLine, hasWhen, captureCount, noLocalNames)
        for ((position, site) in sites.withIndex()) {
            val active = ActiveSite(nextSite.incrementAndGet(), probe, site, codes[position])
            probe.sites.add(active)
            sitesByClass.computeIfAbsent(site.className.replace('.', '/')) { Collections.synchronizedList(ArrayList()) }.add(active)
        }
        probes.add(probe)
    }

    /** Sets every probe: in the classes loaded now, and in those that load later. Null when set, else why not. */
    fun arm(): String? {
        if (!instrumentation.isRetransformClassesSupported) return "this JVM can't retransform classes"
        for (probe in probes) for (site in probe.sites) ProbeHook.register(site.id, site)
        instrumentation.addTransformer(this, true)
        armed = true
        val failure = retransform(sitesByClass.keys.map { it.replace('/', '.') }.toSet())
        if (failure != null) close()
        return failure
    }

    /** Takes every probe out; the classes go back to their own bytes. Safe to call twice. */
    fun close() {
        if (!armed) return
        armed = false
        for (probe in probes) {
            probe.done = true
            for (site in probe.sites) ProbeHook.unregister(site.id)
        }
        instrumentation.removeTransformer(this)
        retransformer.shutdown()
        retransform(sitesByClass.keys.map { it.replace('/', '.') }.toSet())
    }

    /** Every hit, in the order they were recorded (across threads and probes: as they happened). */
    fun hits(): Array<ProbeHitRecord> = synchronized(hits) { hits.toTypedArray() }

    /** What happened to a probe besides its hits (a class changed under it), one sentence each. */
    fun notes(): Array<String> = synchronized(notes) { notes.toTypedArray() }

    /** The notes since the last drain; they are gone from here. */
    fun drainNotes(): Array<String> = synchronized(notes) { notes.toTypedArray().also { notes.clear() } }

    override fun transform(
        loader: ClassLoader?,
        className: String?,
        classBeingRedefined: Class<*>?,
        protectionDomain: ProtectionDomain?,
        classfileBuffer: ByteArray,
    ): ByteArray? {
        val candidates = sitesByClass[className ?: return null] ?: return null
        return try {
            val live = synchronized(candidates) { candidates.filter { !it.probe.done } }
            if (live.isEmpty()) return null
            val now = ProbeClassFiles.ofBytes(classfileBuffer)
            val placed = HashMap<Int, ProbeSite>()
            for (active in live) {
                val found = now.sites(active.probe.line, active.probe.lastLine).firstOrNull { it.sameAs(active.site) }
                if (found == null) {
                    notes.add(
                        "probe ${active.probe.index} was taken out of ${active.site.method}: an edit changed the " +
                            "method's locals at line ${active.probe.line}, which its `when` and `capture` were compiled for",
                    )
                    active.probe.done = true
                } else {
                    placed[active.id] = found
                }
            }
            ProbeInstrumenter.instrument(classfileBuffer, placed)
        } catch (thrown: Throwable) {
            notes.add("a probe could not be set in ${className.replace('/', '.')}: ${ProbeValues.thrown(thrown)}")
            null
        }
    }

    private fun retransform(classNames: Set<String>): String? {
        val loaded = instrumentation.allLoadedClasses.filter { it.name in classNames && instrumentation.isModifiableClass(it) }
        if (loaded.isEmpty()) return null
        return try {
            instrumentation.retransformClasses(*loaded.toTypedArray())
            null
        } catch (thrown: Throwable) {
            "the JVM refused the probed classes (${ProbeValues.thrown(thrown)})"
        }
    }

    /** The stack where the probe fired, from the probed method out: the probe's own frames left out. */
    private fun callerStack(): Array<StackTraceElement> {
        val frames = Throwable().stackTrace
        val first = frames.indexOfFirst { it.className == ProbeHook::class.java.name }
        return if (first < 0) frames else frames.copyOfRange(first + 1, frames.size)
    }

    private companion object {
        val nextSite = AtomicInteger()
    }
}
