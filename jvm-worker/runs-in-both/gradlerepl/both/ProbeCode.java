package gradlerepl.both;

/**
 * A probe's {@code when} and {@code capture} at one site, compiled by the session's compiler into a class of the probed
 * class's package (gradle_repl/worker/probes/expressions.py writes its source) and defined in the probed class's nest
 * ({@link ProbeCodes}). Its methods get {@code this} and the site's locals in the order the site lists them. The same
 * compiled bytes serve the worker's JVM and an attached app (where the worker renames this package to the agent's).
 */
public interface ProbeCode {
    boolean holds(Object self, Object[] locals);

    Object capture(int index, Object self, Object[] locals);

    /**
     * A reference local as its declared type, unchecked: a null goes through as it is (no null check where it is
     * declared) and fails only where the probe's code uses it, as a debugger's evaluate would.
     */
    @SuppressWarnings("unchecked")
    static <T> T local(Object[] locals, int index) {
        return (T) locals[index];
    }
}
