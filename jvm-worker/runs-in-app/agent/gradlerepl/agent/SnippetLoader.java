package gradlerepl.agent;

import java.util.Map;
import java.util.Set;

/**
 * The classes of one snippet, defined on first use. Its parent is the session's {@link SessionClasses}, which answers
 * every earlier snippet's classes, the agent's display API and then the application's: a snippet sees the
 * application and every earlier snippet, and nothing of it is visible to the application. Its own classes it defines
 * itself without asking the parent (their names are its snippet's, {@code _3_repl$Point}), unless an earlier snippet
 * brought that name first.
 */
final class SnippetLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, byte[]> classes;

    /** @param classes by binary name ({@code _3_repl$Point}) */
    SnippetLoader(String name, Map<String, byte[]> classes, SessionClasses parent) {
        super(name, parent);
        this.classes = classes;
    }

    /** The binary names of this snippet's classes. */
    Set<String> classNames() {
        return classes.keySet();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        byte[] bytes = classes.get(name);
        // A name an earlier snippet brought (a class sent again) means that snippet's class, as for everyone else.
        if (bytes == null || !((SessionClasses) getParent()).owns(name, this)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            return loaded != null ? loaded : defineClass(name, bytes, 0, bytes.length);
        }
    }

    /** A class file of this snippet's, or null: what the shared evaluation rule reads a mangled body's value class from. */
    byte[] classFile(String name) {
        return classes.get(name);
    }
}
