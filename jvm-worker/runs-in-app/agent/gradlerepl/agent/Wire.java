package gradlerepl.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The agent's framing; its messages are written down in gradle_repl/worker/link/agent_wire.py, the worker's side. Each
 * message is an int length and that many bytes; inside, big-endian numbers and strings as an int byte count (-1 for
 * null) and UTF-8.
 */
final class Wire {
    private Wire() {}

    /** One message's fields, read in order, each checked against the worker's message of its kind in {@link WireTable}. */
    static final class In {
        private final DataInputStream data;
        private WireTable.Check check;

        In(byte[] message) {
            data = new DataInputStream(new java.io.ByteArrayInputStream(message));
        }

        byte kind() throws IOException {
            byte kind = data.readByte();
            check = new WireTable.Check((char) kind, WireTable.WORKER);
            return kind;
        }

        long number() throws IOException {
            check.next("long", false, 0);
            return data.readLong();
        }

        int count() throws IOException {
            int count = data.readInt();
            check.next("int", false, count);
            return count;
        }

        byte[] bytes() throws IOException {
            int length = data.readInt();
            check.next("bytes", length < 0, 0);
            byte[] bytes = new byte[Math.max(0, length)];
            data.readFully(bytes);
            return length < 0 ? null : bytes;
        }

        String text() throws IOException {
            int length = data.readInt();
            check.next("text", length < 0, 0);
            if (length < 0) {
                return null;
            }
            byte[] bytes = new byte[length];
            data.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        /** Refuses a message that ends before its last field (what the table says it carries). */
        void end() {
            check.end();
        }
    }

    /**
     * One message's fields, written in order, then sent whole; each field is checked against the agent's message of its
     * kind in {@link WireTable} as it is written, so a message the table doesn't describe is never made.
     */
    static final class Out {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final WireTable.Check check;

        Out(char kind) {
            check = new WireTable.Check(kind, WireTable.AGENT);
            buffer.write((byte) kind);
        }

        /** Big-endian, as DataInputStream reads it. */
        private Out bigEndian(long value, int bytes) {
            for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
                buffer.write((int) (value >>> shift));
            }
            return this;
        }

        Out number(long n) {
            check.next("long", false, 0);
            return bigEndian(n, Long.BYTES);
        }

        Out count(int n) {
            check.next("int", false, n);
            return bigEndian(n, Integer.BYTES);
        }

        Out text(String s) {
            check.next("text", s == null, 0);
            return sized(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }

        /** An int byte count (-1 for null) and the bytes. */
        Out bytes(byte[] b) {
            check.next("bytes", b == null, 0);
            return sized(b);
        }

        private Out sized(byte[] b) {
            if (b == null) {
                return bigEndian(-1, Integer.BYTES);
            }
            bigEndian(b.length, Integer.BYTES);
            buffer.write(b, 0, b.length);
            return this;
        }

        /** Refuses a message that ends before its last field; called before it is handed to the writer thread. */
        Out complete() {
            check.end();
            return this;
        }

        void sendTo(OutputStream out) throws IOException {
            synchronized (out) {
                DataOutputStream framed = new DataOutputStream(out);
                framed.writeInt(buffer.size());
                buffer.writeTo(framed);
                framed.flush();
            }
        }
    }

    /** The next message, or null at the end of the stream. */
    static In read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length;
        try {
            length = data.readInt();
        } catch (java.io.EOFException e) {
            return null;
        }
        byte[] message = new byte[length];
        data.readFully(message);
        return new In(message);
    }
}
