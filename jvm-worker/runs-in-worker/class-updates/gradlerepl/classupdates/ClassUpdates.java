package gradlerepl.classupdates;

import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * The session JVM's instrumentation agent (-javaagent at start): it keeps the Instrumentation the JVM hands it, so
 * the worker can replace the bodies of project classes already loaded after a rebuild (what IntelliJ's HotSwap does
 * to a debugged JVM). Written in Java with no dependency, so the JDK's own javac builds it before the JVM starts.
 */
public final class ClassUpdates {
    private static volatile Instrumentation instrumentation;

    private ClassUpdates() {}

    public static void premain(String options, Instrumentation given) {
        instrumentation = given;
    }

    /** The JVM's Instrumentation, for probes (gradlerepl.probes in the facade); null when the agent wasn't loaded. */
    public static Instrumentation instrumentation() {
        return instrumentation;
    }

    /** Whether the agent was loaded and this JVM can redefine classes. */
    public static boolean available() {
        Instrumentation current = instrumentation;
        return current != null && current.isRedefineClassesSupported();
    }

    /**
     * The classes this loader defined that are loaded now, by binary name; those not listed load from disk when first used.
     * The loader's initiated classes hold every class it defined (a defining loader is an initiating one): a few hundred,
     * where all loaded classes are tens of thousands with the Kotlin compiler in the JVM (5 ms of an update's 30).
     */
    public static String[] loadedBy(ClassLoader loader) {
        List<String> names = new ArrayList<>();
        for (Class<?> type : instrumentation.getInitiatedClasses(loader)) {
            if (type.getClassLoader() == loader && !type.isArray()) {
                names.add(type.getName());
            }
        }
        return names.toArray(new String[0]);
    }

    /**
     * Redefines every class in one call, so callers and callees (an inline function's) change together; the JVM
     * applies all or none. Returns null when done, or the JVM's reason for refusing.
     */
    public static String redefine(ClassLoader loader, String[] names, byte[][] bytes) {
        try {
            ClassDefinition[] definitions = new ClassDefinition[names.length];
            for (int i = 0; i < names.length; i++) {
                definitions[i] = new ClassDefinition(Class.forName(names[i], false, loader), bytes[i]);
            }
            instrumentation.redefineClasses(definitions);
            return null;
        } catch (UnsupportedOperationException | ClassNotFoundException | LinkageError error) {
            return error.getClass().getSimpleName() + ": " + error.getMessage();
        } catch (Exception error) {
            return error.toString();
        }
    }
}
