package gradlerepl.agent;

import gradlerepl.both.ProbeHook;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application's classes as probes have them, for every session of this agent: each probed class's own bytes and
 * the bytes it runs while a probe is in it. The worker reads a class's bytes here ({@link #read}), finds where a line
 * starts and puts the hook's calls in with its ASM, and hands the result back ({@link #install}): nothing here parses a
 * class file, so the agent carries no library the app could meet.
 *
 * <p>One transformer serves all: a class's bytes are replaced only while a probe's site is registered in it, and a
 * class that loads later gets its probed bytes when what it loads is the very bytes the worker instrumented. Two
 * sessions' probes in one class both fire: the second worker instruments the bytes the first one's probe put in place.
 * A class goes back to its own bytes when no probe is left in it (a probe taken out while another stays leaves its
 * call behind, which returns at once: ProbeHook skips an unregistered site).
 */
final class ProbeClasses implements ClassFileTransformer {
    /** A probed class: its own bytes (as the JVM gives them to a transformer), the bytes it runs now (null: its own). */
    private static final class Probed {
        byte[] own;
        byte[] now;
        int version;
    }

    private static ProbeClasses installed;
    private static final AtomicInteger NEXT_SITE = new AtomicInteger();

    private final Instrumentation instrumentation;
    // Read on every class the JVM loads while the transformer is in (see transform()): a lookup that takes no lock.
    private final Map<String, Probed> probed = new ConcurrentHashMap<>();
    // A probe that ends on its own (its maxHits, its expiry) asks from the thread that hit it: the classes are
    // retransformed here, never on an application's thread.
    private final ExecutorService restorer = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "gradle-repl-probes");
        thread.setDaemon(true);
        thread.setContextClassLoader(null); // made from whichever app thread retires a probe first: it keeps none of its
        return thread;
    });

    private ProbeClasses(Instrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    /** This JVM's one instance, its transformer added the first time a probe is wanted. */
    static synchronized ProbeClasses of(Instrumentation instrumentation) {
        if (installed == null) {
            installed = new ProbeClasses(instrumentation);
            instrumentation.addTransformer(installed, true);
        }
        return installed;
    }

    /** The first of {@code count} site ids no other probe of this JVM uses. */
    static int reserveSites(int count) {
        return NEXT_SITE.getAndAdd(count);
    }

    /** A class's bytes as a probe is put into them: the bytes it runs now, the version they are, or null: not found. */
    static final class Read {
        final String name;
        final int version;
        final byte[] bytes;

        Read(String name, int version, byte[] bytes) {
            this.name = name;
            this.version = version;
            this.bytes = bytes;
        }
    }

    /**
     * Each class's bytes: a loaded class's as the JVM gives them (retransformed once to see them), one not loaded yet
     * read through {@code loader}; with {@code nested}, the loaded classes nested in each too ({@code Cart$Line}).
     */
    List<Read> read(List<String> names, boolean nested, ClassLoader loader) throws UnmodifiableClassException {
        Map<String, List<Class<?>>> loaded = new LinkedHashMap<>();
        for (String name : names) {
            loaded.put(name, new ArrayList<>());
        }
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            String name = type.getName();
            String outer = nested && name.indexOf('$') > 0 ? name.substring(0, name.indexOf('$')) : name;
            if ((loaded.containsKey(name) || (nested && names.contains(outer))) && instrumentation.isModifiableClass(type)) {
                loaded.computeIfAbsent(name, n -> new ArrayList<>()).add(type);
            }
        }
        List<Class<?>> toSee = new ArrayList<>();
        synchronized (this) {
            for (Map.Entry<String, List<Class<?>>> entry : loaded.entrySet()) {
                probed.putIfAbsent(entry.getKey(), new Probed());
                if (probed.get(entry.getKey()).own == null) {
                    toSee.addAll(entry.getValue());
                }
            }
        }
        if (!toSee.isEmpty()) {
            instrumentation.retransformClasses(toSee.toArray(new Class<?>[0])); // transform() keeps their own bytes
        }
        List<Read> reads = new ArrayList<>();
        for (String name : loaded.keySet()) {
            byte[] file = probed.get(name).own == null ? resource(name, loader) : null; // read outside the lock
            synchronized (this) {
                Probed entry = probed.get(name);
                if (entry.own == null) {
                    entry.own = file;
                }
                reads.add(new Read(name, entry.version, entry.now != null ? entry.now : entry.own));
            }
        }
        return reads;
    }

    /**
     * Why the hook's calls can't go into these loaded classes, or null when they can: a class whose loader doesn't
     * see this agent's classes (an isolating loader: OSGi, JBoss Modules) would throw NoClassDefFoundError on the
     * probed line in the app's own code, and one in a named module couldn't link to the agent's unnamed one.
     */
    private static String unreachable(List<Class<?>> classes) {
        for (Class<?> type : classes) {
            if (type.getModule().isNamed()) {
                return type.getName() + " is in the named module " + type.getModule().getName()
                        + ", which gradle-repl's agent can't put a probe into";
            }
            if (!seesHook(type.getClassLoader())) {
                return type.getName() + "'s class loader (" + type.getClassLoader()
                        + ") doesn't see gradle-repl's agent, so a probe's call there would fail the app's code";
            }
        }
        return null;
    }

    /** Whether code loaded by {@code loader} links to this agent's ProbeHook (the one whose sites are registered). */
    private static boolean seesHook(ClassLoader loader) {
        try {
            return Class.forName(ProbeHook.class.getName(), false, loader) == ProbeHook.class;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Puts each class's new bytes in place (null: its own again), each built on the version {@link #read} gave: when
     * another session changed one meanwhile, nothing is changed and the answer says which (the worker reads again).
     */
    String install(Map<String, byte[]> bytes, Map<String, Integer> versions) {
        List<Class<?>> classes = loaded(bytes.keySet());
        String refused = unreachable(classes);
        if (refused != null) {
            return refused;
        }
        synchronized (this) {
            for (Map.Entry<String, byte[]> entry : bytes.entrySet()) {
                Probed known = probed.get(entry.getKey());
                if (known == null || known.version != versions.get(entry.getKey())) {
                    return "changed:" + entry.getKey();
                }
            }
        }
        Map<String, byte[]> before = new HashMap<>();
        synchronized (this) {
            for (Map.Entry<String, byte[]> entry : bytes.entrySet()) {
                Probed known = probed.get(entry.getKey());
                before.put(entry.getKey(), known.now);
                known.now = entry.getValue();
                known.version++;
            }
        }
        String failure = retransform(classes);
        if (failure != null) {
            // The JVM runs the bytes it ran before: what is recorded here says so again, and a later load or read of
            // these classes gets those, never the refused ones.
            synchronized (this) {
                for (Map.Entry<String, byte[]> entry : before.entrySet()) {
                    Probed known = probed.get(entry.getKey());
                    known.now = entry.getValue();
                    known.version++;
                }
            }
        }
        return failure;
    }

    /** The classes no probe is left in go back to their own bytes. */
    void restore(Iterable<String> names) {
        List<String> restored = new ArrayList<>();
        synchronized (this) {
            for (String name : names) {
                Probed known = probed.get(name);
                if (known != null && known.now != null && !ProbeHook.liveIn(name)) {
                    known.now = null;
                    known.version++;
                    restored.add(name);
                }
            }
        }
        retransform(loaded(restored));
    }

    /** {@link #restore}, on this agent's own thread. */
    void restoreLater(Iterable<String> names) {
        restorer.execute(() -> restore(names));
    }

    /** The loaded, modifiable classes of these names (one scan of every loaded class). */
    private List<Class<?>> loaded(Iterable<String> names) {
        List<String> wanted = new ArrayList<>();
        names.forEach(wanted::add);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (wanted.contains(type.getName()) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
        }
        return loaded;
    }

    /** Null when these classes now run their bytes, else why not. */
    private String retransform(List<Class<?>> classes) {
        if (classes.isEmpty()) {
            return null;
        }
        try {
            instrumentation.retransformClasses(classes.toArray(new Class<?>[0]));
            return null;
        } catch (Throwable thrown) {
            return "the JVM refused the probed classes (" + thrown + ")";
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (internalName == null) {
            return null;
        }
        String name = internalName.replace('/', '.');
        if (!probed.containsKey(name)) {
            return null;
        }
        synchronized (this) {
            Probed known = probed.get(name);
            if (known.own == null) {
                known.own = classfileBuffer.clone();
            } else if (classBeingRedefined == null && known.now == null && !Arrays.equals(classfileBuffer, known.own)) {
                // It loads now, with other bytes than those read from its loader's resource before (another agent
                // changed them): those are what it will run and be retransformed from, so a probe built on the old
                // ones must be built again (install answers "changed").
                known.own = classfileBuffer.clone();
                known.version++;
            }
            // Only the bytes the worker instrumented get its probe, and only where the class links to the hook: a
            // class of that name elsewhere stays as it is.
            if (known.now == null || !Arrays.equals(classfileBuffer, known.own)) {
                return null;
            }
            return classBeingRedefined != null || seesHook(loader) ? known.now : null;
        }
    }

    private static byte[] resource(String name, ClassLoader loader) {
        String path = name.replace('.', '/') + ".class";
        ClassLoader from = loader != null ? loader : ClassLoader.getSystemClassLoader();
        try (InputStream in = from.getResourceAsStream(path)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }
}
