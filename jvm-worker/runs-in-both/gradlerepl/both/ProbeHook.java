package gradlerepl.both;

/**
 * What probed code calls where a probe's line starts (the worker's instrumenter puts the call there, in the worker's
 * JVM and in an attached app alike). It never throws and never lets a probe's own code reach a probe: a {@code capture}
 * that calls the probed method records nothing twice.
 *
 * <p>The call runs on every pass of a probed line while its probe is set, a {@code when} that doesn't hold included,
 * so its path is short: the site by index in an array, one thread-local read for the guard. A call whose site is no
 * longer registered (its probe taken out while another keeps the class instrumented) returns at once.
 *
 * <p>In the worker, shared with the project's class loader (SnippetClassLoaders' shared packages), so the project's
 * classes see it; in an app, on the system class path with the rest of the agent.
 */
public final class ProbeHook {
    private static volatile ProbeRun.Site[] sites = new ProbeRun.Site[64];
    private static final ThreadLocal<boolean[]> IN_PROBE = ThreadLocal.withInitial(() -> new boolean[1]);

    private ProbeHook() {}

    public static void hit(int site, Class<?> owner, Object self, Object[] locals) {
        ProbeRun.Site[] known = sites;
        ProbeRun.Site active = site < known.length ? known[site] : null;
        if (active == null || active.probe.done) {
            return;
        }
        boolean[] busy = IN_PROBE.get();
        if (busy[0]) {
            return;
        }
        busy[0] = true;
        try {
            active.hit(owner, self, locals);
        } catch (Throwable thrown) {
            // A probe never changes what the probed code does, whatever went wrong in it; but a thread being stopped
            // (a test past its timeout) is stopped, probe or not.
            if (thrown.getClass().getName().equals("java.lang.ThreadDeath")) {
                throw thrown;
            }
        } finally {
            busy[0] = false;
        }
    }

    static synchronized void register(ProbeRun.Site site) {
        ProbeRun.Site[] known = sites;
        ProbeRun.Site[] next = java.util.Arrays.copyOf(known, site.id >= known.length ? Math.max(site.id + 1, known.length * 2) : known.length);
        next[site.id] = site;
        sites = next;
    }

    static synchronized void unregister(ProbeRun.Site site) {
        ProbeRun.Site[] known = sites;
        if (site.id < known.length && known[site.id] == site) {
            ProbeRun.Site[] next = known.clone();
            next[site.id] = null;
            sites = next;
        }
    }

    /** Whether a probe still set has a site in the class {@code binaryName}. */
    public static boolean liveIn(String binaryName) {
        for (ProbeRun.Site site : sites) {
            if (site != null && !site.probe.done && site.className.equals(binaryName)) {
                return true;
            }
        }
        return false;
    }
}
