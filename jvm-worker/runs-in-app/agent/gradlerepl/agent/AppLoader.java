package gradlerepl.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The class loader snippets' loaders sit on: the one that loaded the application's main class, so snippets see the
 * application's classes exactly as its own code does. The main class is read from the command line the JVM was
 * started with ({@code sun.java.command}); for {@code java -jar} it is the jar's {@code Start-Class} (a Spring Boot
 * fat jar: its classes are in the {@code LaunchedClassLoader}, not on the class path) or else its {@code Main-Class}.
 * Where that class is loaded more than once (Spring Boot devtools' {@code RestartClassLoader} loads it again), the
 * copy in the loader furthest from the system loader wins: it is the one the running application uses.
 * Without a main class to go by, the system class loader.
 */
final class AppLoader {
    private AppLoader() {}

    static ClassLoader find(Instrumentation instrumentation) {
        String mainClass = mainClass();
        ClassLoader best = null;
        if (mainClass != null) {
            for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
                if (!loaded.getName().equals(mainClass)) {
                    continue;
                }
                ClassLoader loader = loaded.getClassLoader();
                if (loader != null && (best == null || isAncestor(best, loader))) {
                    best = loader;
                }
            }
        }
        return best != null ? best : ClassLoader.getSystemClassLoader();
    }

    /** The main class's name, or null when the command line names none that can be read. */
    static String mainClass() {
        String command = System.getProperty("sun.java.command", "").trim();
        if (command.isEmpty()) {
            return null;
        }
        String first = command.split(" ", 2)[0];
        if (!first.endsWith(".jar")) {
            return first;
        }
        try (JarFile jar = new JarFile(first)) {
            Manifest manifest = jar.getManifest();
            if (manifest == null) {
                return null;
            }
            String start = manifest.getMainAttributes().getValue("Start-Class");
            return start != null ? start : manifest.getMainAttributes().getValue("Main-Class");
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isAncestor(ClassLoader ancestor, ClassLoader loader) {
        for (ClassLoader l = loader.getParent(); l != null; l = l.getParent()) {
            if (l == ancestor) {
                return true;
            }
        }
        return false;
    }
}
