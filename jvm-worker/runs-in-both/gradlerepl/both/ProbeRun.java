package gradlerepl.both;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The probes of one call, or one probe of a session that outlives its calls, as they run: what each records at a
 * hit, how often it may fire, when it ends. Where the probes are put into the code is its owner's: the worker's
 * transformer (gradlerepl.probes.ProbeCall) or an attached app's agent; {@code takeOut} is how a probe that reached its
 * maxHits or expiry asks its owner to take its classes back to their own bytes. No thread is ever stopped.
 */
public final class ProbeRun {
    /** One hit, as the worker reads it (gradle_repl/worker/probes/hits.py). Values are already text, capped. */
    public static final class HitRecord {
        public final int probe;
        public final int hit;
        public final String thread;
        public final StackTraceElement[] stack;
        public final String[] localNames;
        public final String[] localTypes;
        public final ProbeValues.Text[] localValues;
        public final ProbeValues.Text self;
        public final ProbeValues.Text[] captured;
        /** Each captured value's runtime class (Class.getName), or null: the worker names it in Kotlin. */
        public final String[] capturedTypes;
        public final String whenError;
        public final boolean noLocalNames;

        HitRecord(int probe, int hit, String thread, StackTraceElement[] stack, String[] localNames, String[] localTypes,
                ProbeValues.Text[] localValues, ProbeValues.Text self, ProbeValues.Text[] captured, String[] capturedTypes,
                String whenError, boolean noLocalNames) {
            this.probe = probe;
            this.hit = hit;
            this.thread = thread;
            this.stack = stack;
            this.localNames = localNames;
            this.localTypes = localTypes;
            this.localValues = localValues;
            this.self = self;
            this.captured = captured;
            this.capturedTypes = capturedTypes;
            this.whenError = whenError;
            this.noLocalNames = noLocalNames;
        }
    }

    /** One probe: where it is, how often it may fire, what it records. */
    public final class Probe {
        public final int index;
        public final int maxHits;
        public final int line;
        public final int lastLine;
        final boolean hasWhen;
        final int captureCount;
        final boolean noLocalNames;
        final AtomicInteger hits = new AtomicInteger();
        public volatile boolean done;
        public final List<Site> sites = new ArrayList<>();

        Probe(int index, int maxHits, int line, int lastLine, boolean hasWhen, int captureCount, boolean noLocalNames) {
            this.index = index;
            this.maxHits = maxHits;
            this.line = line;
            this.lastLine = lastLine;
            this.hasWhen = hasWhen;
            this.captureCount = captureCount;
            this.noLocalNames = noLocalNames;
        }

        /** Marks it done and asks the owner to take it out of its classes. */
        public void retire() {
            done = true;
            Set<String> classes = new LinkedHashSet<>();
            for (Site site : sites) {
                classes.add(site.className);
            }
            takeOut.accept(classes);
        }
    }

    /** A probe at one site (a method where its line starts): its compiled {@code when} and {@code capture}. */
    public final class Site {
        public final int id;
        public final Probe probe;
        /** The probed class's binary name ({@code shop.Cart}) and the method, as a stack frame names it. */
        public final String className;
        public final String method;
        final String[] localNames;
        final String[] localTypes;
        private final byte[] code;
        private final byte[] door;
        /** The owner's own description of the place (the worker's ProbeSite), or null. */
        public final Object place;
        private final Map<Class<?>, Object> defined = new ConcurrentHashMap<>();
        // The last class's code, read without a map lookup on the path every pass of the line takes; one array, so a
        // thread never reads one class with another's code.
        private volatile Object[] last;

        Site(int id, Probe probe, String className, String method, String[] localNames, String[] localTypes, byte[] code,
                byte[] door, Object place) {
            this.id = id;
            this.probe = probe;
            this.className = className;
            this.method = method;
            this.localNames = localNames;
            this.localTypes = localTypes;
            this.code = code;
            this.door = door;
            this.place = place;
        }

        void hit(Class<?> owner, Object self, Object[] locals) {
            if (probe.done) {
                return;
            }
            Object compiled = codeFor(owner);
            String whenError = null;
            if (probe.hasWhen) {
                if (compiled instanceof ProbeCode) {
                    try {
                        if (!((ProbeCode) compiled).holds(self, locals)) {
                            return;
                        }
                    } catch (Throwable thrown) {
                        whenError = ProbeValues.thrown(thrown);
                    }
                } else {
                    whenError = String.valueOf(compiled);
                }
            }
            record(compiled, self, locals, whenError);
        }

        /** A pass to record ({@code when} held, or threw: {@code whenError}), up to the probe's maxHits. */
        void record(Object compiled, Object self, Object[] locals, String whenError) {
            if (probe.done) {
                return;
            }
            // Read only where a hit would be recorded: a pass whose `when` doesn't hold pays no clock read (the worker
            // takes a probe past its expiry out besides, at its next look).
            long expires = expiresAt;
            if (expires != 0L && System.nanoTime() - expires > 0) {
                probe.retire();
                return;
            }
            int hit = probe.hits.incrementAndGet();
            if (hit > probe.maxHits) {
                return;
            }
            ProbeValues.Text[] captured = new ProbeValues.Text[probe.captureCount];
            String[] capturedTypes = new String[probe.captureCount];
            for (int index = 0; index < captured.length; index++) {
                if (compiled instanceof ProbeCode) {
                    try {
                        Object value = ((ProbeCode) compiled).capture(index, self, locals);
                        captured[index] = ProbeValues.text(value, valueLimit);
                        capturedTypes[index] = value == null ? null : value.getClass().getName();
                    } catch (Throwable thrown) {
                        captured[index] = ProbeValues.Text.failed(ProbeValues.thrown(thrown));
                    }
                } else {
                    captured[index] = ProbeValues.Text.failed(String.valueOf(compiled));
                }
            }
            ProbeValues.Text[] values = new ProbeValues.Text[locals.length];
            for (int index = 0; index < values.length; index++) {
                values[index] = ProbeValues.text(locals[index], valueLimit);
            }
            hits.add(new HitRecord(probe.index, hit, Thread.currentThread().getName(), callerStack(), localNames, localTypes,
                    values, self != null ? ProbeValues.text(self, valueLimit) : null, captured, capturedTypes, whenError,
                    probe.noLocalNames));
            if (hit >= probe.maxHits) {
                probe.retire();
            }
        }

        /** The site's code defined in {@code owner}'s nest (once per class), or why it could not be; null for none. */
        Object codeFor(Class<?> owner) {
            if (code == null) {
                return null;
            }
            Object[] seen = last;
            if (seen != null && seen[0] == owner) {
                return seen[1];
            }
            Object found = defined.computeIfAbsent(owner, type -> {
                try {
                    ProbeCode made = ProbeCodes.define(type, code, door);
                    made.bind(this, type);
                    return made;
                } catch (Throwable thrown) {
                    return "the probe's code could not be defined in " + type.getName() + ": " + ProbeValues.thrown(thrown);
                }
            });
            last = new Object[] {owner, found};
            return found;
        }
    }

    private final int valueLimit;
    private final Consumer<Set<String>> takeOut;
    private final List<Probe> probes = new ArrayList<>();
    private final List<HitRecord> hits = Collections.synchronizedList(new ArrayList<>());
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean armed;
    // When a probe that outlives its call (add_kotlin_probe) takes itself out: System.nanoTime(); 0 for never.
    private volatile long expiresAt;

    public ProbeRun(int valueLimit, Consumer<Set<String>> takeOut) {
        this.valueLimit = valueLimit;
        this.takeOut = takeOut;
    }

    public Probe addProbe(int index, int maxHits, int line, int lastLine, boolean hasWhen, int captureCount, boolean noLocalNames) {
        Probe probe = new Probe(index, maxHits, line, lastLine, hasWhen, captureCount, noLocalNames);
        probes.add(probe);
        return probe;
    }

    /** A site of {@code probe}; {@code code} its compiled {@code when}/{@code capture} (null: none), {@code door} the door's bytes. */
    public Site addSite(Probe probe, int id, String className, String method, String[] localNames, String[] localTypes,
            byte[] code, byte[] door, Object place) {
        Site site = new Site(id, probe, className, method, localNames, localTypes, code, door, place);
        probe.sites.add(site);
        return site;
    }

    public List<Probe> probes() {
        return probes;
    }

    /** Every site's class, by binary name. */
    public Set<String> classNames() {
        Set<String> names = new LinkedHashSet<>();
        for (Probe probe : probes) {
            for (Site site : probe.sites) {
                names.add(site.className);
            }
        }
        return names;
    }

    /** The probes' sites registered with the hook: from now on a pass of a probed line records. */
    public void arm() {
        for (Probe probe : probes) {
            for (Site site : probe.sites) {
                ProbeHook.register(site);
            }
        }
        armed = true;
    }

    /** Every probe done and its sites gone from the hook; the owner takes them out of the code. Safe to call twice. */
    public boolean disarm() {
        if (!armed) {
            return false;
        }
        armed = false;
        for (Probe probe : probes) {
            probe.done = true;
            for (Site site : probe.sites) {
                ProbeHook.unregister(site);
            }
        }
        return true;
    }

    /** The probes end themselves {@code seconds} from now (a session's probe: expiresSeconds). */
    public void expireIn(double seconds) {
        expiresAt = System.nanoTime() + (long) (seconds * 1e9);
    }

    /** The hits recorded since the last drain, in order; they are gone from here. */
    public HitRecord[] drainHits() {
        synchronized (hits) {
            HitRecord[] drained = hits.toArray(new HitRecord[0]);
            hits.clear();
            return drained;
        }
    }

    /** Every hit, in the order they were recorded (across threads and probes: as they happened). */
    public HitRecord[] hits() {
        synchronized (hits) {
            return hits.toArray(new HitRecord[0]);
        }
    }

    /** How often each probe fired (up to its maxHits), by index. */
    public int[] hitCounts() {
        int[] counts = new int[probes.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = Math.min(probes.get(i).hits.get(), probes.get(i).maxHits);
        }
        return counts;
    }

    /** Whether each probe is still in the code (not past its maxHits, its expiry, or taken out). */
    public boolean[] activity() {
        boolean[] active = new boolean[probes.size()];
        for (int i = 0; i < active.length; i++) {
            active[i] = armed && !probes.get(i).done;
        }
        return active;
    }

    /** Records what happened to a probe besides its hits (a class changed under it), one sentence. */
    public void note(String note) {
        notes.add(note);
    }

    public String[] notes() {
        synchronized (notes) {
            return notes.toArray(new String[0]);
        }
    }

    /** The notes since the last drain; they are gone from here. */
    public String[] drainNotes() {
        synchronized (notes) {
            String[] drained = notes.toArray(new String[0]);
            notes.clear();
            return drained;
        }
    }

    /**
     * The stack where the probe fired, from the probed method out, its first {@link #STACK_FRAMES} frames: the probe's
     * own frames left out. A request's stack in a server runs to ~150 frames, of which a hit shows the project's few;
     * kept whole, a thousand hits would hold megabytes in the app until they are read.
     */
    private static StackTraceElement[] callerStack() {
        StackTraceElement[] frames = new Throwable().getStackTrace();
        // The probe's own frames come first: this package's (the hook's, the site code's base class) and the site
        // code's pass (a hidden class: shown only with -XX:+ShowHiddenFrames), then the probed method's.
        String own = ProbeHook.class.getPackage().getName() + ".";
        int from = 0;
        while (from < frames.length && (frames[from].getClassName().startsWith(own)
                || frames[from].getMethodName().equals(ProbeCode.PASS))) {
            from++;
        }
        return java.util.Arrays.copyOfRange(frames, from, Math.min(frames.length, from + STACK_FRAMES));
    }

    /** How many frames of a hit's stack are kept. */
    public static final int STACK_FRAMES = 64;
}
