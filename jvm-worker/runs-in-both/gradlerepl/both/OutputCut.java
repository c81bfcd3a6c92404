package gradlerepl.both;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Where a snippet's output limit cuts what it prints, the same in gradle-repl's worker and in an attached app: a
 * character the limit would split is dropped whole (counted with the rest), never kept as a broken byte sequence
 * that decodes to U+FFFD. Dependency-free Java (jvm-worker/runs-in-both).
 */
public final class OutputCut {
    private OutputCut() {}

    /**
     * How many of the {@code len} bytes at {@code off}, encoded in {@code charset}, are kept when {@code room} bytes
     * are left: all of them when they fit, else at most {@code room}, ending on a character's boundary.
     */
    public static int kept(byte[] b, int off, int len, long room, Charset charset) {
        if (len <= room) {
            return len;
        }
        int kept = (int) Math.max(0, room);
        if (charset.equals(StandardCharsets.UTF_8)) {
            // The first byte cut is a continuation byte (10xxxxxx): the character it belongs to began in what is kept.
            while (kept > 0 && (b[off + kept] & 0xC0) == 0x80) {
                kept--;
            }
            return kept;
        }
        // Any other charset: what its decoder reads as whole characters (it leaves a split one's bytes unread).
        CharsetDecoder decoder = charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer bytes = ByteBuffer.wrap(b, off, kept);
        decoder.decode(bytes, CharBuffer.allocate(kept * 2 + 2), false);
        return bytes.position() - off;
    }
}
