package gradlerepl.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Streams over a socket channel that read and write at once: the session's reader waits for the worker's next
 * request while a snippet's thread sends its reply. (The streams of java.nio.channels.Channels take the channel's
 * blocking lock for either, so a reply would wait for the next request.)
 */
final class ChannelStreams {
    private ChannelStreams() {}

    static final class In extends InputStream {
        private final SocketChannel channel;

        In(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len));
        }
    }

    static final class Out extends OutputStream {
        private final SocketChannel channel;

        Out(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }
}
