package gradlerepl.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * The app's class path as a worker elsewhere compiles against it ({@code J}, {@code F}): each entry of
 * {@code java.class.path} with its size and SHA-256, then its bytes in pieces. A worker keeps what it fetched by
 * digest, so an app attached to again sends only what changed. A directory (an IDE's or a build's class output) goes
 * as a jar of its files, made once per session: the worker reads jars alike.
 */
final class AppClassPath {
    /** One entry: its path here, and a directory's jar (null for a file, which is read where it is). */
    private record Entry(String path, Path file, byte[] packed, long size, String digest) {}

    /** The most a directory entry may hold to be sent (as a jar made in the app's heap). */
    private static final long LARGEST_DIRECTORY = 256L << 20;

    private final List<Entry> entries = new ArrayList<>();

    /**
     * {@code J}: the entries, listed once per session (a second J lists them again, fresh): {@code java.class.path}'s,
     * and the jars their manifests' {@code Class-Path} names (an app started with {@code java -jar} and its
     * {@code lib/}), each once, in the order the JVM searches them.
     */
    Wire.Out list(long id) {
        entries.clear();
        Set<Path> seen = new HashSet<>();
        Deque<Path> pending = new ArrayDeque<>();
        for (String path : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (!path.isEmpty()) {
                pending.add(Path.of(path).toAbsolutePath().normalize());
            }
        }
        while (!pending.isEmpty()) {
            Path path = pending.removeFirst();
            if (seen.add(path)) {
                entries.add(entry(path));
                List<Path> named = manifestClassPath(path);
                for (int i = named.size() - 1; i >= 0; i--) {
                    pending.addFirst(named.get(i)); // right after the jar that names them, as URLClassPath has them
                }
            }
        }
        Wire.Out reply = new Wire.Out('J').number(id).count(entries.size());
        for (Entry entry : entries) {
            reply.text(entry.path).number(entry.size).text(entry.digest);
        }
        return reply;
    }

    /** {@code F}: a piece of an entry's bytes (null for an entry that isn't there or can't be read). */
    Wire.Out piece(long id, int index, long offset, int length) {
        byte[] bytes = null;
        if (index >= 0 && index < entries.size() && entries.get(index).digest != null && offset >= 0 && length >= 0) {
            Entry entry = entries.get(index);
            int size = (int) Math.max(0, Math.min(length, entry.size - Math.min(offset, entry.size)));
            offset = Math.min(offset, entry.size);
            bytes = new byte[size];
            if (entry.packed != null) {
                System.arraycopy(entry.packed, (int) offset, bytes, 0, size);
            } else {
                try (RandomAccessFile file = new RandomAccessFile(entry.file.toFile(), "r")) {
                    file.seek(offset);
                    file.readFully(bytes);
                } catch (IOException e) {
                    bytes = null;
                }
            }
        }
        return new Wire.Out('F').number(id).bytes(bytes);
    }

    private static Entry entry(Path file) {
        String path = file.toString();
        try {
            if (Files.isDirectory(file)) {
                byte[] packed = packed(file);
                return new Entry(path, file, packed, packed.length, hex(digest().digest(packed)));
            }
            MessageDigest digest = digest();
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[1 << 16];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    digest.update(buffer, 0, n);
                }
            }
            return new Entry(path, file, null, Files.size(file), hex(digest.digest()));
        } catch (IOException e) {
            return new Entry(path, file, null, 0, null); // not there (a class path may name what doesn't exist)
        }
    }

    /** The jars a jar's manifest names on its {@code Class-Path}, resolved against its directory (none: not a jar). */
    private static List<Path> manifestClassPath(Path jar) {
        List<Path> named = new ArrayList<>();
        if (!Files.isRegularFile(jar)) {
            return named;
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (classPath != null) {
                for (String name : classPath.trim().split("\\s+")) {
                    if (!name.isEmpty() && !name.contains(":")) { // a relative URL; http: and the like are no files
                        named.add(jar.getParent().resolve(name.replace('/', java.io.File.separatorChar)).normalize());
                    }
                }
            }
        } catch (IOException | SecurityException e) {
            // not a jar the JVM would read either
        }
        return named;
    }

    /**
     * A directory's files as a jar, in name order with no times: the same files make the same bytes and digest. A
     * directory past {@link #LARGEST_DIRECTORY} bytes (an app started with {@code -cp .} in {@code /}) is no class
     * output: left out rather than held in the app's heap.
     */
    private static byte[] packed(Path directory) throws IOException {
        long total = 0;
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                total += Files.size(file);
                if (total > LARGEST_DIRECTORY) {
                    throw new IOException(directory + " holds more than a class output does");
                }
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes); Stream<Path> walk = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile).sorted()::iterator) {
                JarEntry entry = new JarEntry(directory.relativize(file).toString().replace(java.io.File.separatorChar, '/'));
                entry.setTime(0);
                jar.putNextEntry(entry);
                Files.copy(file, jar);
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }
}
