package gradlerepl.both;

/**
 * A probe's {@code when} and {@code capture} at one site, compiled by the session's compiler into a class of the probed
 * class's package (gradle_repl/worker/probes/expressions.py writes its source) and defined in the probed class's nest
 * ({@link ProbeCodes}), one instance per probed class. Its methods get {@code this} and the site's locals in the order
 * the site lists them. The same compiled bytes serve the worker's JVM and an attached app (where the worker renames
 * this package to the agent's).
 *
 * <p>A probed line's linked call (ProbeHook.site) reaches the site's {@link #PASS} directly with the locals as their
 * slots hold them — a primitive as itself, a reference as Object — so a pass whose {@code when} doesn't hold allocates
 * nothing and, in the worker's C1-compiled code too, costs about what the {@code when} itself does. It evaluates the
 * {@code when} between {@link #gradleReplEnter} and {@link #gradleReplLeave} and reports through
 * {@link #gradleReplPassed} (named so no name the {@code when} means is taken by them); the locals are boxed only
 * for a pass to record. {@link #holds} is the same {@code when} for a pass through ProbeHook.hit, locals boxed.
 */
public abstract class ProbeCode {
    /** The name of the site class's {@code public void PASS(Object self, locals…)}. */
    public static final String PASS = "gradleReplPass";

    /** How {@link #gradleReplEnter} let a pass evaluate its {@code when}, for {@link #gradleReplLeave}. */
    protected static final int GRADLE_REPL_NOT_ENTERED = 0;
    protected static final int GRADLE_REPL_BY_SITE = 1;
    protected static final int GRADLE_REPL_BY_THREAD = 2;

    private ProbeRun.Site site;
    private Class<?> owner;
    // The thread evaluating this site's `when` now: a `when` that reaches its own line again (it calls the probed
    // method) doesn't evaluate it there, so it can't recurse. A plain field read on every pass, not a ThreadLocal,
    // which costs more than a small probed method does; while another thread holds it, the thread's own guard
    // (ProbeHook's) stands in, so a race costs at most one evaluation more, never a recursion.
    private Thread evaluating;

    protected ProbeCode() {}

    /** Where this instance serves: set once, before any pass reaches it. */
    final void bind(ProbeRun.Site site, Class<?> owner) {
        this.site = site;
        this.owner = owner;
    }

    public abstract boolean holds(Object self, Object[] locals);

    public abstract Object capture(int index, Object self, Object[] locals);

    /**
     * Whether this pass evaluates the {@code when} ({@link #GRADLE_REPL_NOT_ENTERED} when not: its probe ended, or this thread is
     * evaluating it already), and by which guard.
     */
    protected final int gradleReplEnter() {
        if (site.probe.done) {
            return GRADLE_REPL_NOT_ENTERED;
        }
        Thread me = Thread.currentThread();
        Thread holder = evaluating;
        if (holder == me) {
            return GRADLE_REPL_NOT_ENTERED;
        }
        if (holder == null) {
            evaluating = me;
            return GRADLE_REPL_BY_SITE;
        }
        return ProbeHook.enterThread() ? GRADLE_REPL_BY_THREAD : GRADLE_REPL_NOT_ENTERED;
    }

    protected final void gradleReplLeave(int entered) {
        if (entered == GRADLE_REPL_BY_SITE) {
            if (evaluating == Thread.currentThread()) {
                evaluating = null;
            }
        } else if (entered == GRADLE_REPL_BY_THREAD) {
            ProbeHook.leaveThread();
        }
    }

    /**
     * What the {@code when} said: recorded when it {@code held} or threw (then {@code thrown}); {@code locals} boxed.
     * Never throws into the probed code, but for a thread being stopped.
     */
    protected final void gradleReplPassed(boolean held, Throwable thrown, Object self, Object[] locals) {
        try {
            if (thrown != null) {
                ProbeHook.failed(thrown, site.id, owner, self, locals);
            } else if (held) {
                ProbeHook.held(site.id, owner, self, locals, true);
            }
        } catch (Throwable failed) {
            ProbeHook.rethrowIfStopped(failed);
        }
    }

    /**
     * A reference local as its declared type, unchecked: a null goes through as it is (no null check where it is
     * declared) and fails only where the probe's code uses it, as a debugger's evaluate would.
     */
    @SuppressWarnings("unchecked")
    public static <T> T local(Object[] locals, int index) {
        return (T) locals[index];
    }

    /** {@link #local}'s cast of a local {@link #PASS} got as it is. */
    @SuppressWarnings("unchecked")
    public static <T> T local(Object local) {
        return (T) local;
    }
}
