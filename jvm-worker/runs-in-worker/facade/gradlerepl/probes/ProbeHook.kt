package gradlerepl.probes

/**
 * What probed code calls where a probe's line starts (ProbeInstrumenter puts the call there). It never throws and
 * never lets a probe's own code reach a probe: a `capture` that calls the probed method records nothing twice.
 *
 * The call runs on every pass of a probed line while its probe is set, a `when` that doesn't hold included, so its
 * path is short: the site by index in an array, one thread-local read for the guard.
 *
 * Shared with the project's class loader (SnippetClassLoaders' shared packages), so the project's classes see it.
 */
object ProbeHook {
    @Volatile private var sites: Array<ProbeCall.ActiveSite?> = arrayOfNulls(64)
    private val inProbe = ThreadLocal.withInitial { BooleanArray(1) }

    @JvmStatic
    fun hit(site: Int, owner: Class<*>, self: Any?, locals: Array<Any?>) {
        val known = sites
        val active = (if (site < known.size) known[site] else null) ?: return
        if (active.probe.done) return
        val busy = inProbe.get()
        if (busy[0]) return
        busy[0] = true
        try {
            active.hit(owner, self, locals)
        } catch (thrown: Throwable) {
            // A probe never changes what the probed code does, whatever went wrong in it; but a thread being stopped
            // (a test past its timeout) is stopped, probe or not.
            if (thrown.javaClass.name == "java.lang.ThreadDeath") throw thrown
        } finally {
            busy[0] = false
        }
    }

    @Synchronized
    internal fun register(id: Int, site: ProbeCall.ActiveSite) {
        var known = sites
        if (id >= known.size) known = known.copyOf(maxOf(id + 1, known.size * 2))
        else known = known.copyOf()
        known[id] = site
        sites = known
    }

    @Synchronized
    internal fun unregister(id: Int) {
        if (id < sites.size) sites = sites.copyOf().also { it[id] = null }
    }
}
