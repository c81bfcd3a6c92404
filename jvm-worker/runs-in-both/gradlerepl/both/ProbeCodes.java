package gradlerepl.both;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Array;
import java.lang.reflect.Method;

/**
 * Defines a site's compiled code as a hidden class in the probed class's nest, so it reads private members as code at
 * that line does (a debugger's evaluate has the same reach): it was compiled against the class with every member
 * public, so its accesses are direct, which the JVM allows a nestmate.
 *
 * <p>Defining a nestmate takes a lookup with full privilege on the probed class. The caller's own private lookup lacks
 * the module bit (each class loader has its own unnamed module), so a small class defined in the probed class's
 * package, its "door" ({@link #DOOR}, one per package and loader, whose bytes the worker makes), is in the same
 * module, and a private lookup from there has it.
 */
public final class ProbeCodes {
    /** The door's simple name: {@code public final class GradleReplProbeDoor { public static Lookup lookup() } }. */
    public static final String DOOR = "GradleReplProbeDoor";

    private ProbeCodes() {}

    /** The door's binary name in {@code owner}'s package. */
    public static String doorName(String ownerBinaryName) {
        int dot = ownerBinaryName.lastIndexOf('.');
        return dot < 0 ? DOOR : ownerBinaryName.substring(0, dot) + "." + DOOR;
    }

    public static ProbeCode define(Class<?> owner, byte[] code, byte[] door) throws ReflectiveOperationException {
        Class<?> defined = defineHidden(fullLookup(owner, door), code);
        return (ProbeCode) defined.getDeclaredConstructor().newInstance();
    }

    private static MethodHandles.Lookup fullLookup(Class<?> owner, byte[] doorBytes) throws ReflectiveOperationException {
        String doorName = doorName(owner.getName());
        Class<?> door;
        try {
            door = Class.forName(doorName, true, owner.getClassLoader());
        } catch (ClassNotFoundException e) {
            try {
                door = MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).defineClass(doorBytes);
            } catch (LinkageError raced) {
                door = Class.forName(doorName, true, owner.getClassLoader()); // another thread defined it first
            }
        }
        MethodHandles.Lookup doorLookup = (MethodHandles.Lookup) door.getMethod("lookup").invoke(null);
        return MethodHandles.privateLookupIn(owner, doorLookup);
    }

    /** Lookup.defineHiddenClass(bytes, true, NESTMATE), read reflectively: these classes compile for Java 11 too. */
    private static Class<?> defineHidden(MethodHandles.Lookup lookup, byte[] bytes) throws ReflectiveOperationException {
        Class<?> options = Class.forName("java.lang.invoke.MethodHandles$Lookup$ClassOption");
        Object nestmate = null;
        for (Object option : options.getEnumConstants()) {
            if (((Enum<?>) option).name().equals("NESTMATE")) {
                nestmate = option;
            }
        }
        Object array = Array.newInstance(options, 1);
        Array.set(array, 0, nestmate);
        Method define = MethodHandles.Lookup.class.getMethod("defineHiddenClass", byte[].class, boolean.class, array.getClass());
        MethodHandles.Lookup hidden = (MethodHandles.Lookup) define.invoke(lookup, bytes, true, array);
        return hidden.lookupClass();
    }
}
