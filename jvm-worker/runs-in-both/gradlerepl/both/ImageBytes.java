package gradlerepl.both;

import java.util.Arrays;

/**
 * Which encoded image a byte array holds, by its first bytes: PNG or JPEG, the formats a byte-array value or
 * {@code image(bytes)} is shown as. Links nothing of java.desktop, so it loads in any runtime
 * (jvm-worker/runs-in-both; {@link DrawnImages} encodes drawn images).
 */
public final class ImageBytes {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};
    private static final byte[] JPEG_MAGIC = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF};

    private ImageBytes() {}

    /** {@link DisplayKinds#PNG} or {@link DisplayKinds#JPEG}, or null when the bytes are neither. */
    public static String mime(byte[] bytes) {
        if (startsWith(bytes, PNG_MAGIC)) {
            return DisplayKinds.PNG;
        }
        return startsWith(bytes, JPEG_MAGIC) ? DisplayKinds.JPEG : null;
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(Arrays.copyOf(bytes, prefix.length), prefix);
    }
}
