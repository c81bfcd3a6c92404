package gradlerepl.agent;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parent of every snippet loader of one attached session: each snippet's classes by name, then the application's
 * (or the Kotlin runtime this session lent it). A snippet's loader is so one step from every earlier snippet's classes
 * however long the session: chained under the previous snippet's loader, as the K2 REPL's evaluator chains them, the
 * n-th snippet's every class lookup would ask n loaders (the worker's own JVM keeps its snippets so too:
 * SnippetLoaders.kt).
 */
final class SessionClasses extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, SnippetLoader> owners;

    SessionClasses(ClassLoader parent) {
        this(parent, new ConcurrentHashMap<>());
    }

    private SessionClasses(ClassLoader parent, Map<String, SnippetLoader> owners) {
        super("gradle-repl-snippets", parent);
        this.owners = owners;
    }

    /** The same snippets' classes above another parent (the Kotlin runtime lent once the session began). */
    SessionClasses over(ClassLoader parent) {
        return new SessionClasses(parent, owners);
    }

    /** The snippet's classes, from now on found by every later snippet (the first to name a class keeps it). */
    void add(SnippetLoader snippet) {
        for (String name : snippet.classNames()) {
            owners.putIfAbsent(name, snippet);
        }
    }

    /** Whether this snippet is the one whose class the name means (the first to bring it). */
    boolean owns(String name, SnippetLoader snippet) {
        return owners.get(name) == snippet;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.equals(Display.class.getName())) {
            // The agent's display API, for snippets and a describe's toString(): the application's loaders may not
            // delegate to the one that loaded the agent.
            return Display.class;
        }
        SnippetLoader owner = owners.get(name);
        // The owner defines its own classes without asking this loader back.
        return owner != null ? owner.loadClass(name) : super.loadClass(name, resolve);
    }
}
