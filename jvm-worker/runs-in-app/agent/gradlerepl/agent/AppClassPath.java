package gradlerepl.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
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

    private final List<Entry> entries = new ArrayList<>();

    /** {@code J}: the entries, listed once per session (a second J lists them again, fresh). */
    Wire.Out list(long id) {
        entries.clear();
        for (String path : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (!path.isEmpty()) {
                entries.add(entry(path));
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
            int size = (int) Math.max(0, Math.min(length, entry.size - offset));
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

    private static Entry entry(String path) {
        Path file = Path.of(path).toAbsolutePath();
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

    /** A directory's files as a jar, in name order with no times: the same files make the same bytes and digest. */
    private static byte[] packed(Path directory) throws IOException {
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
