package gradlerepl.agent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;

/**
 * The Kotlin runtime a session's snippets run with in an app that has none, defined from the jars' bytes the worker
 * sent ({@code R}): no file of it is ever on the app's machine, so a container, another host or another user's
 * process gets it the same way. It sits between the app's loader and the session's snippet classes; the app's own
 * loaders never see it, and it goes with the session.
 */
final class RuntimeLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String SCHEME = "gradle-repl-runtime";

    /** Every entry of the jars by its path ({@code kotlin/Unit.class}); the first jar's wins, as on a class path. */
    private final Map<String, byte[]> entries = new HashMap<>();
    private final URLStreamHandler handler = new URLStreamHandler() {
        @Override
        protected URLConnection openConnection(URL url) throws IOException {
            byte[] bytes = entries.get(url.getPath().substring(1));
            if (bytes == null) {
                throw new IOException("no " + url.getPath() + " in the Kotlin runtime gradle-repl sent");
            }
            return new URLConnection(url) {
                @Override
                public void connect() {}

                @Override
                public InputStream getInputStream() {
                    return new ByteArrayInputStream(bytes);
                }
            };
        }
    };

    RuntimeLoader(List<byte[]> jars, ClassLoader parent) throws IOException {
        super("gradle-repl-kotlin-runtime", parent);
        for (byte[] jar : jars) {
            try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
                for (JarEntry entry = in.getNextJarEntry(); entry != null; entry = in.getNextJarEntry()) {
                    if (!entry.isDirectory()) {
                        entries.putIfAbsent(entry.getName(), readAll(in));
                    }
                }
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] bytes = entries.get(name.replace('.', '/') + ".class");
        if (bytes == null) {
            throw new ClassNotFoundException(name);
        }
        return defineClass(name, bytes, 0, bytes.length);
    }

    @Override
    protected URL findResource(String name) {
        if (!entries.containsKey(name)) {
            return null;
        }
        try {
            return new URL(SCHEME, null, -1, "/" + name, handler);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.emptyEnumeration() : Collections.enumeration(List.of(url));
    }
}
