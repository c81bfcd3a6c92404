package gradlerepl.agent;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;

/**
 * What a snippet prints, and only that: System.out and System.err become streams that send a snippet thread's bytes
 * to its session and every other thread's to the application's own streams, unchanged. The application's logs never
 * reach a session, and nothing a snippet prints reaches the application's console.
 */
final class SnippetOutput {
    private static final ThreadLocal<Capture> CAPTURE = new ThreadLocal<>();
    private static boolean installed;

    private SnippetOutput() {}

    /** What one snippet printed, up to a limit; the bytes over it are counted, not kept. */
    static final class Capture {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int limit;
        private long dropped;

        Capture(int limit) {
            this.limit = limit;
        }

        synchronized void write(byte[] b, int off, int len) {
            int kept = Math.max(0, Math.min(len, limit - bytes.size()));
            bytes.write(b, off, kept);
            dropped += len - kept;
        }

        synchronized String text() {
            return bytes.toString(charset());
        }

        synchronized long dropped() {
            return dropped;
        }
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        System.setOut(routed(System.out));
        System.setErr(routed(System.err));
    }

    /** Captures what the current thread prints until {@link #end}. */
    static void begin(Capture capture) {
        CAPTURE.set(capture);
    }

    static void end() {
        CAPTURE.remove();
    }

    private static PrintStream routed(PrintStream app) {
        OutputStream router = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                Capture capture = CAPTURE.get();
                if (capture != null) {
                    capture.write(b, off, len);
                } else {
                    app.write(b, off, len);
                }
            }

            @Override
            public void flush() {
                if (CAPTURE.get() == null) {
                    app.flush();
                }
            }
        };
        try {
            return new PrintStream(router, true, charset().name());
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The console's encoding as the JDK picked it for System.out (JDK 17 names it in sun.stdout.encoding). */
    private static Charset charset() {
        String name = System.getProperty("stdout.encoding", System.getProperty("sun.stdout.encoding"));
        try {
            return name != null ? Charset.forName(name) : Charset.defaultCharset();
        } catch (IllegalArgumentException e) {
            return Charset.defaultCharset();
        }
    }
}
