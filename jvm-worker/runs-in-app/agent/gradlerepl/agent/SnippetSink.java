package gradlerepl.agent;

import gradlerepl.both.OutputCut;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What one snippet prints and displays, sent to its session while it runs, in the order it happened: stdout and
 * stderr as streams of their own, each chunk a complete line or what waited {@link #FLUSH_MILLIS}, and display items
 * between them. One output limit counts the printed bytes and the displayed items' sizes together; what goes past it
 * is counted, not kept, and the count is sent with the snippet's end.
 *
 * <p>Every message is made and handed to {@code send} under this sink's lock, so the order handed over is the order
 * printed; {@code send} only queues it for the session's writer thread. The interval flush is a task on the
 * session's scheduler, not a thread per write.
 */
final class SnippetSink {
    static final int STDOUT = 1;
    static final int STDERR = 2;
    /**
     * How long printed text without a line end waits before it is sent anyway: a prompt or progress dots show while the
     * snippet runs, and a snippet writing byte by byte still makes a few messages a second, not one per byte.
     */
    static final long FLUSH_MILLIS = 100;
    private static final byte NEWLINE = '\n';

    private final long id;
    private final long limit;
    private final Consumer<Wire.Out> send;
    private final ScheduledExecutorService scheduler;
    private final Charset charset;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private CharsetDecoder decoder;
    private int pendingStream = STDOUT;
    private long used;
    private long dropped;
    private boolean flushScheduled;
    private boolean ended;

    SnippetSink(long id, long limit, Charset charset, Consumer<Wire.Out> send, ScheduledExecutorService scheduler) {
        this.id = id;
        this.limit = limit;
        this.charset = charset;
        this.send = send;
        this.scheduler = scheduler;
        this.decoder = decoder(charset);
    }

    /** Bytes the snippet's thread printed on {@code stream}; complete lines go at once, the rest after a moment. */
    synchronized void print(int stream, byte[] b, int off, int len) {
        if (ended) {
            return; // a stopped snippet's thread printing on: its session has had its answer
        }
        if (stream != pendingStream) {
            sendPending(true);
            pendingStream = stream;
        }
        // The limit ends inside this write: what OutputCut keeps (never half a character); nothing later is kept.
        int kept = OutputCut.kept(b, off, len, limit - used, charset);
        used = kept < len ? limit : used + kept;
        dropped += len - kept;
        int lineEnd = lastNewline(b, off, kept);
        if (lineEnd >= 0) {
            pending.write(b, off, lineEnd + 1 - off);
            sendPending(false);
            pending.write(b, lineEnd + 1, off + kept - lineEnd - 1);
        } else {
            pending.write(b, off, kept);
        }
        if (pending.size() > 0 && !flushScheduled) {
            flushScheduled = true;
            try {
                scheduler.schedule(this::flush, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                ended = true; // the session has ended: nobody is left to read what the snippet prints
            }
        }
    }

    /** A display item, after everything printed before it; over the limit it is counted as cut instead. */
    synchronized void display(Rendering.Item item) {
        if (ended) {
            return;
        }
        sendPending(true);
        long size = item.size();
        if (size > limit - used) {
            dropped += size;
            return;
        }
        used += size;
        send.accept(item.message(new Wire.Out('I').number(id)));
    }

    /** Sends what waited for its line's end; the scheduler's task, at most one pending at a time. */
    synchronized void flush() {
        flushScheduled = false;
        if (!ended) {
            sendPending(false);
        }
    }

    /** The snippet is answered: what it printed last, and how much the limit cut, go before its reply. */
    synchronized void end() {
        if (ended) {
            return;
        }
        sendPending(true);
        if (dropped > 0) {
            send.accept(new Wire.Out('L').number(id).number(dropped));
        }
        ended = true;
    }

    /**
     * Sends the pending bytes as text. Unless {@code complete}, a character whose bytes are not all written yet waits
     * for the rest (the decoder keeps them), so a chunk never splits one.
     */
    private void sendPending(boolean complete) {
        if (pending.size() == 0) {
            return;
        }
        ByteBuffer bytes = ByteBuffer.wrap(pending.toByteArray());
        CharBuffer chars = CharBuffer.allocate((int) (bytes.remaining() * (double) decoder.maxCharsPerByte()) + 2);
        decoder.decode(bytes, chars, complete);
        if (complete) {
            decoder.flush(chars);
            decoder = decoder(charset);
        }
        pending.reset();
        pending.write(bytes.array(), bytes.position(), bytes.remaining());
        chars.flip();
        if (chars.hasRemaining()) {
            send.accept(new Wire.Out('O').number(id).count(pendingStream).text(chars.toString()));
        }
    }

    private static int lastNewline(byte[] b, int off, int len) {
        for (int i = off + len - 1; i >= off; i--) {
            if (b[i] == NEWLINE) {
                return i;
            }
        }
        return -1;
    }

    private static CharsetDecoder decoder(Charset charset) {
        return charset.newDecoder().onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    }
}
