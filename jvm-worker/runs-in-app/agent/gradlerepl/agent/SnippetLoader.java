package gradlerepl.agent;

import java.util.Map;

/**
 * The classes of one snippet, defined on first use. Its parent is the previous snippet's loader (the first one's is
 * the application's), as the K2 REPL chains its snippets' loaders: a snippet sees the application and every earlier
 * snippet, and nothing of it is visible to the application. Besides, it hands snippets the agent's display API
 * ({@link Display}) itself: the application's loaders may not delegate to the one that loaded the agent.
 */
final class SnippetLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, byte[]> classes;

    /** @param classes by binary name ({@code _3_repl$Point}) */
    SnippetLoader(String name, Map<String, byte[]> classes, ClassLoader parent) {
        super(name, parent);
        this.classes = classes;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        return name.equals(Display.class.getName()) ? Display.class : super.loadClass(name, resolve);
    }

    /** A class file of this snippet's, or null: what the shared evaluation rule reads a mangled body's value class from. */
    byte[] classFile(String name) {
        return classes.get(name);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] bytes = classes.get(name);
        if (bytes == null) {
            throw new ClassNotFoundException(name);
        }
        return defineClass(name, bytes, 0, bytes.length);
    }
}
