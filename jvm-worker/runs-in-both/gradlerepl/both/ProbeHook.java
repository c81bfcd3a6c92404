package gradlerepl.both;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;

/**
 * What probed code calls where a probe's line starts (the worker's instrumenter puts the call there, in the worker's
 * JVM and in an attached app alike). It never throws and never lets a probe's own code reach its probe again: a
 * {@code capture} or {@code when} that calls the probed method records nothing twice.
 *
 * <p>The call runs on every pass of a probed line while its probe is set, a {@code when} that doesn't hold included,
 * so that pass must cost about what the line's own code does. The instrumenter puts an {@code invokedynamic} there
 * whose arguments are {@code this} and the line's locals as they are (primitives unboxed, nothing allocated), linked
 * once by {@link #site} straight to the site's compiled code ({@link ProbeCode#PASS}): one direct method handle, which
 * C1 inlines as C2 does (each combinator of java.lang.invoke would be a call of its own under C1, tens of ns), and
 * only a pass whose {@code when} holds boxes the locals and records a hit. {@link #hit} is the same call for a class
 * file too old for {@code invokedynamic}: the locals boxed in an array on every pass.
 *
 * <p>In the worker, shared with the project's class loader (SnippetClassLoaders' shared packages), so the project's
 * classes see it; in an app, on the system class path with the rest of the agent.
 */
public final class ProbeHook {
    /** The bootstrap's name and descriptor, as the instrumenter's {@code invokedynamic} names them. */
    public static final String SITE = "site";
    public static final String SITE_DESCRIPTOR = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
            + "Ljava/lang/invoke/MethodType;I)Ljava/lang/invoke/CallSite;";

    private static volatile ProbeRun.Site[] sites = new ProbeRun.Site[64];
    private static final ThreadLocal<boolean[]> IN_PROBE = ThreadLocal.withInitial(() -> new boolean[1]);
    // A walker that shows hidden classes' frames, or null where a security manager refuses one.
    private static final StackWalker FRAMES = hiddenFrames();
    private static final MethodHandle HIT;
    private static final MethodHandle HELD;

    static {
        MethodHandles.Lookup own = MethodHandles.lookup();
        MethodType record = MethodType.methodType(void.class, int.class, Class.class, Object.class, Object[].class);
        try {
            HIT = own.findStatic(ProbeHook.class, "hit", record);
            HELD = own.findStatic(ProbeHook.class, "held", record);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ProbeHook() {}

    private static StackWalker hiddenFrames() {
        try {
            return StackWalker.getInstance(StackWalker.Option.SHOW_HIDDEN_FRAMES);
        } catch (Throwable refused) {
            return null;
        }
    }

    /** A pass of a probed line, {@code when} not evaluated yet: it is here, on every pass (the class file's old). */
    public static void hit(int site, Class<?> owner, Object self, Object[] locals) {
        pass(site, owner, self, locals, true, null, false);
    }

    /**
     * Links a probed line's {@code invokedynamic}: {@code type} is {@code (Object self, locals…)V}, each local as its
     * slot holds it (a primitive as itself, a reference as Object). With a {@code when}, the call goes straight to its
     * site class's {@link ProbeCode#PASS}; without, every pass records. Never throws: a site that can't be linked
     * records through {@link #hit}'s path, and one gone already does nothing.
     */
    public static CallSite site(MethodHandles.Lookup caller, String name, MethodType type, int site) {
        ProbeRun.Site active = live(site);
        if (active == null) {
            return new ConstantCallSite(MethodHandles.empty(type));
        }
        Class<?> owner = caller.lookupClass();
        try {
            return new ConstantCallSite(linked(active, caller, owner, type));
        } catch (Throwable thrown) {
            rethrowIfStopped(thrown);
        }
        try {
            return new ConstantCallSite(recorder(HIT, site, owner, type));
        } catch (Throwable thrown) {
            rethrowIfStopped(thrown);
            return new ConstantCallSite(MethodHandles.empty(type)); // a bootstrap that throws would fail the line
        }
    }

    private static MethodHandle linked(ProbeRun.Site active, MethodHandles.Lookup caller, Class<?> owner, MethodType type)
            throws ReflectiveOperationException {
        if (!active.probe.hasWhen) {
            return recorder(HELD, active.id, owner, type);
        }
        Object compiled = active.codeFor(owner);
        if (compiled instanceof ProbeCode) {
            for (Method method : compiled.getClass().getMethods()) {
                if (method.getName().equals(ProbeCode.PASS)) {
                    return caller.unreflect(method).bindTo(compiled).asType(type);
                }
            }
        }
        return recorder(HIT, active.id, owner, type); // records why its code isn't there, at each pass
    }

    /** {@code record} with the site and class bound, the locals collected into its array: of the site's {@code type}. */
    private static MethodHandle recorder(MethodHandle record, int site, Class<?> owner, MethodType type) {
        MethodHandle bound = MethodHandles.insertArguments(record, 0, site, owner); // (Object self, Object[] locals)
        return bound.asCollector(Object[].class, type.parameterCount() - 1).asType(type);
    }

    /** A pass of a probe without a {@code when}: recorded. */
    static void held(int site, Class<?> owner, Object self, Object[] locals) {
        pass(site, owner, self, locals, false, null, false);
    }

    /** A pass whose {@code when} held, reported by the site's pass ({@code fromPass}: its frame is on the stack). */
    static void held(int site, Class<?> owner, Object self, Object[] locals, boolean fromPass) {
        pass(site, owner, self, locals, false, null, fromPass);
    }

    /** A pass whose {@code when} threw, reported by the site's pass: recorded with what it threw. */
    static void failed(Throwable thrown, int site, Class<?> owner, Object self, Object[] locals) {
        rethrowIfStopped(thrown);
        pass(site, owner, self, locals, false, thrown, true);
    }

    /**
     * A pass recorded under the thread's guard: its {@code when} evaluated here first ({@code evaluate}), or what it
     * threw. Nothing is recorded inside a probe's own code: a capture, or another site's {@code when}.
     */
    private static void pass(int site, Class<?> owner, Object self, Object[] locals, boolean evaluate, Throwable whenThrew,
            boolean fromPass) {
        ProbeRun.Site active = live(site);
        if (active == null) {
            return;
        }
        boolean[] busy = IN_PROBE.get();
        if (busy[0]) {
            return;
        }
        busy[0] = true;
        try {
            if (insideAnotherPass(fromPass)) {
                return;
            }
            if (evaluate) {
                active.hit(owner, self, locals);
            } else {
                active.record(active.codeFor(owner), self, locals, whenThrew == null ? null : ProbeValues.thrown(whenThrew));
            }
        } catch (Throwable thrown) {
            rethrowIfStopped(thrown);
        } finally {
            busy[0] = false;
        }
    }

    /**
     * Whether this pass runs inside another site's {@code when}: a site's pass evaluates it under a guard of its own
     * (ProbeCode), not the thread's, so what it reaches is told by the pass's frame on the stack — looked for only
     * where a hit would be recorded. Its frame is a hidden class's: {@link #FRAMES} shows them.
     */
    private static boolean insideAnotherPass(boolean fromPass) {
        if (FRAMES == null) {
            return false;
        }
        long passes = FRAMES.walk(frames -> frames.filter(f -> f.getMethodName().equals(ProbeCode.PASS)).limit(2).count());
        return passes > (fromPass ? 1 : 0);
    }

    /** The thread's guard, for a site's pass while another thread holds the site's own (ProbeCode). */
    static boolean enterThread() {
        boolean[] busy = IN_PROBE.get();
        if (busy[0]) {
            return false;
        }
        busy[0] = true;
        return true;
    }

    static void leaveThread() {
        IN_PROBE.get()[0] = false;
    }

    /**
     * A probe never changes what the probed code does, whatever went wrong in it; but a thread being stopped (a test
     * past its timeout) is stopped, probe or not.
     */
    static void rethrowIfStopped(Throwable thrown) {
        if (thrown.getClass().getName().equals("java.lang.ThreadDeath")) {
            throw (Error) thrown;
        }
    }

    private static ProbeRun.Site live(int site) {
        ProbeRun.Site[] known = sites;
        ProbeRun.Site active = site < known.length ? known[site] : null;
        return active == null || active.probe.done ? null : active;
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
