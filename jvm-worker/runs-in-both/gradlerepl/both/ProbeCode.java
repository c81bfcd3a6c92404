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

    private ProbeRun.Site site;
    private Class<?> owner;
    // The thread evaluating this site's `when` now: a `when` that reaches its own line again (it calls the probed
    // method) doesn't evaluate it there, so it can't recurse. A plain field, not a ThreadLocal, which costs more than a
    // small probed method does; two threads at once may each evaluate once more, never endlessly.
    private Thread evaluating;

    protected ProbeCode() {}

    /** Where this instance serves: set once, before any pass reaches it. */
    final void bind(ProbeRun.Site site, Class<?> owner) {
        this.site = site;
        this.owner = owner;
    }

    public abstract boolean holds(Object self, Object[] locals);

    public abstract Object capture(int index, Object self, Object[] locals);

    /** Whether this pass evaluates the {@code when}: the probe records still, and this thread isn't evaluating it already. */
    protected final boolean gradleReplEnter() {
        Thread me = Thread.currentThread();
        if (evaluating == me || site.probe.done) {
            return false;
        }
        evaluating = me;
        return true;
    }

    protected final void gradleReplLeave() {
        evaluating = null;
    }

    /** What the {@code when} said: recorded when it {@code held} or threw (then {@code thrown}); {@code locals} boxed. */
    protected final void gradleReplPassed(boolean held, Throwable thrown, Object self, Object[] locals) {
        if (thrown != null) {
            ProbeHook.failed(thrown, site.id, owner, self, locals);
        } else if (held) {
            ProbeHook.held(site.id, owner, self, locals);
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
