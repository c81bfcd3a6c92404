package gradlerepl.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The agent's framing; its messages are written down in gradle_repl/worker/attach/agent_wire.py, the worker's side. Each
 * message is an int length and that many bytes; inside, big-endian numbers and strings as an int byte count (-1 for
 * null) and UTF-8.
 */
final class Wire {
    private Wire() {}

    /** One message's fields, read in order. */
    static final class In {
        private final DataInputStream data;

        In(byte[] message) {
            data = new DataInputStream(new java.io.ByteArrayInputStream(message));
        }

        byte kind() throws IOException {
            return data.readByte();
        }

        long number() throws IOException {
            return data.readLong();
        }

        int count() throws IOException {
            return data.readInt();
        }

        byte[] bytes() throws IOException {
            byte[] bytes = new byte[data.readInt()];
            data.readFully(bytes);
            return bytes;
        }

        String text() throws IOException {
            int length = data.readInt();
            if (length < 0) {
                return null;
            }
            byte[] bytes = new byte[length];
            data.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** One message's fields, written in order, then sent whole. */
    static final class Out {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

        Out(char kind) {
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
            return bigEndian(n, Long.BYTES);
        }

        Out count(int n) {
            return bigEndian(n, Integer.BYTES);
        }

        Out text(String s) {
            if (s == null) {
                return count(-1);
            }
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            count(bytes.length);
            buffer.write(bytes, 0, bytes.length);
            return this;
        }

        /** An int byte count (-1 for null) and the bytes. */
        Out bytes(byte[] b) {
            if (b == null) {
                return count(-1);
            }
            count(b.length);
            buffer.write(b, 0, b.length);
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
