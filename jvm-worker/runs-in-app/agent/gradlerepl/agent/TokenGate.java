package gradlerepl.agent;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The token a TCP connection must give before it is a session: its first line, {@link WireTable#AUTH_GREETING} and
 * the token, answered by one line — {@link WireTable#AUTH_OK}, or {@link WireTable#AUTH_REFUSED} and why, after which
 * the connection closes. Compared in constant time, never logged or echoed. A wrong one costs a delay that doubles with
 * each failure in a row (all connections wait their turn behind it), so guessing is slow on top of hopeless (128+
 * random bits); a line not given within {@link #ANSWER_MILLIS}, or longer than {@link #LONGEST_LINE}, is refused too.
 */
final class TokenGate {
    private static final long ANSWER_MILLIS = 10_000;
    private static final int LONGEST_LINE = 1024;
    private static final long FIRST_DELAY_MILLIS = 200;
    private static final long LONGEST_DELAY_MILLIS = 5_000;
    /** Connections waiting to give their token at once; past this, a new one is closed at once (a flood). */
    private static final Semaphore WAITING = new Semaphore(16);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "gradle-repl-agent-token-timer");
        thread.setDaemon(true);
        return thread;
    });

    private final byte[] token;
    private int failures; // in a row

    TokenGate(byte[] token) {
        this.token = token;
    }

    /** Whether the connection gave the token; a refused one was told so in one line (the caller closes it). */
    boolean admit(SocketChannel channel) throws IOException {
        if (!WAITING.tryAcquire()) {
            return false;
        }
        try {
            ScheduledFuture<?> late = TIMER.schedule(() -> quietlyClose(channel), ANSWER_MILLIS, TimeUnit.MILLISECONDS);
            String line;
            try {
                line = firstLine(channel);
            } finally {
                late.cancel(false);
            }
            String refusal = check(line, channel.getRemoteAddress());
            String answer = refusal == null ? WireTable.AUTH_OK : WireTable.AUTH_REFUSED + " " + refusal;
            ByteBuffer out = ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                channel.write(out);
            }
            return refusal == null;
        } finally {
            WAITING.release();
        }
    }

    /** Null when the line gives the token, else why not (no secret in it); a failure waits its delay first. */
    private synchronized String check(String line, SocketAddress from) {
        String prefix = WireTable.AUTH_GREETING + " ";
        boolean right = line != null && line.startsWith(prefix)
                && MessageDigest.isEqual(line.substring(prefix.length()).getBytes(StandardCharsets.UTF_8), token);
        if (right) {
            failures = 0;
            return null;
        }
        failures++;
        String why = line == null || !line.startsWith(prefix) ? "no token given" : "wrong token";
        System.err.println("gradle-repl's agent refused a connection from " + from + ": " + why + " (" + failures + " in a row)");
        long delay = Math.min(LONGEST_DELAY_MILLIS, FIRST_DELAY_MILLIS << Math.min(failures - 1, 10));
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return why;
    }

    /** The connection's first line without its newline; null when it ends, runs long or is closed for lateness first. */
    private static String firstLine(SocketChannel channel) {
        ByteBuffer one = ByteBuffer.allocate(1);
        byte[] line = new byte[LONGEST_LINE];
        int length = 0;
        try {
            while (length < LONGEST_LINE) {
                one.clear();
                if (channel.read(one) < 0) {
                    return null;
                }
                byte b = one.get(0);
                if (b == '\n') {
                    return new String(line, 0, length, StandardCharsets.UTF_8);
                }
                line[length++] = b;
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static void quietlyClose(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed already
        }
    }
}
