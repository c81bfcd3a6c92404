package gradlerepl.agent;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;

/**
 * What a snippet prints, and only that: System.out and System.err become streams that send a snippet thread's bytes
 * to its session's {@link SnippetSink} (each stream as itself) and every other thread's to the application's own
 * streams, unchanged. The application's logs never reach a session, and nothing a snippet prints reaches the
 * application's console.
 */
final class SnippetOutput {
    private static final ThreadLocal<SnippetSink> SINK = new ThreadLocal<>();
    private static boolean installed;

    private SnippetOutput() {}

    static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        System.setOut(routed(System.out, SnippetSink.STDOUT));
        System.setErr(routed(System.err, SnippetSink.STDERR));
    }

    /** Sends what the current thread prints to {@code sink} until {@link #end}. */
    static void begin(SnippetSink sink) {
        SINK.set(sink);
    }

    static void end() {
        SINK.remove();
    }

    /** The sink of the current thread's snippet, or null on any other thread. */
    static SnippetSink current() {
        return SINK.get();
    }

    /** The console's encoding, in which System.out and System.err encode what they print. */
    static Charset charset() {
        String name = System.getProperty("stdout.encoding", System.getProperty("sun.stdout.encoding"));
        try {
            return name != null ? Charset.forName(name) : Charset.defaultCharset();
        } catch (IllegalArgumentException e) {
            return Charset.defaultCharset();
        }
    }

    private static PrintStream routed(PrintStream app, int stream) {
        OutputStream router = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                SnippetSink sink = SINK.get();
                if (sink != null) {
                    sink.print(stream, b, off, len);
                } else {
                    app.write(b, off, len);
                }
            }

            @Override
            public void flush() {
                if (SINK.get() == null) {
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
}
