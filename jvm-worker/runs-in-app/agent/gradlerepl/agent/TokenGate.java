package gradlerepl.agent;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a TCP connection must prove before it is a session: that it holds the token, without the token crossing the
 * wire. The agent's first line is {@link WireTable#AUTH_CHALLENGE} and a fresh random nonce; the worker answers one
 * line, {@link WireTable#AUTH_GREETING}, a nonce of its own and HMAC-SHA256(token, "worker" + agent's nonce + its
 * nonce); the agent answers one line, {@link WireTable#AUTH_OK} and HMAC-SHA256(token, "agent" + worker's nonce +
 * agent's nonce) — so the worker knows it reached the agent its token belongs to, not whatever listens on the port —
 * or {@link WireTable#AUTH_REFUSED} and why, after which the connection closes. Proofs are compared in constant time;
 * nothing of the token is logged or echoed. A failing connection waits a delay that doubles with each failure in a
 * row (at most {@link #LONGEST_DELAY_MILLIS}) before its refusal, on its own thread: a right token never waits behind
 * one. A line not given within {@link #ANSWER_MILLIS}, or longer than {@link #LONGEST_LINE}, fails too.
 */
final class TokenGate {
    private static final long ANSWER_MILLIS = 10_000;
    private static final int LONGEST_LINE = 1024;
    private static final long FIRST_DELAY_MILLIS = 200;
    private static final long LONGEST_DELAY_MILLIS = 5_000;
    private static final int NONCE_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "gradle-repl-agent-token-timer");
        thread.setDaemon(true);
        return thread;
    });

    private final byte[] token;
    private int failures; // in a row, across connections

    TokenGate(byte[] token) {
        this.token = token;
    }

    /** Whether the connection proved it holds the token; a refused one was told so in one line (the caller closes it). */
    boolean admit(SocketChannel channel) throws IOException {
        SocketAddress from = channel.getRemoteAddress();
        String agentNonce = HEX.formatHex(nonce());
        write(channel, WireTable.AUTH_CHALLENGE + " " + agentNonce);
        ScheduledFuture<?> late = TIMER.schedule(() -> quietlyClose(channel), ANSWER_MILLIS, TimeUnit.MILLISECONDS);
        String line;
        try {
            line = firstLine(channel);
        } finally {
            late.cancel(false);
        }
        String[] words = line == null ? new String[0] : line.split(" ");
        boolean greeted = words.length == 3 && words[0].equals(WireTable.AUTH_GREETING);
        boolean right = greeted
                && MessageDigest.isEqual(HEX.formatHex(proof("worker", agentNonce, words[1])).getBytes(StandardCharsets.US_ASCII),
                        words[2].getBytes(StandardCharsets.US_ASCII));
        if (right) {
            synchronized (this) {
                failures = 0;
            }
            write(channel, WireTable.AUTH_OK + " " + HEX.formatHex(proof("agent", words[1], agentNonce)));
            return true;
        }
        int inARow;
        synchronized (this) {
            inARow = ++failures;
        }
        String why = greeted ? "wrong token" : "no token given";
        System.err.println("gradle-repl's agent refused a connection from " + from + ": " + why + " (" + inARow + " in a row)");
        try {
            Thread.sleep(Math.min(LONGEST_DELAY_MILLIS, FIRST_DELAY_MILLIS << Math.min(inARow - 1, 10)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        write(channel, WireTable.AUTH_REFUSED + " " + why);
        return false;
    }

    /** HMAC-SHA256(token, side + first nonce + second nonce): what proves a side holds the token. */
    private byte[] proof(String side, String first, String second) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token, "HmacSHA256"));
            return mac.doFinal((side + first + second).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JVM has HmacSHA256", e);
        }
    }

    private static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    private static void write(SocketChannel channel, String line) throws IOException {
        ByteBuffer out = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    /** The connection's next line without its newline; null when it ends, runs long or is closed for lateness first. */
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
                    return new String(line, 0, length, StandardCharsets.UTF_8).strip();
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
