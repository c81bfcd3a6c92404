package gradlerepl.agent;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import javax.imageio.ImageIO;

/**
 * A value as a session shows it, the way the facade's Renderer does in a session of its own: a drawn image
 * ({@code BufferedImage}) as PNG, encoded PNG or JPEG bytes as that image, anything else as text. (The facade's
 * Compose and Skia images, read by reflection there, are text here.) Images need the {@code java.desktop} module;
 * in a runtime without it every value is text and {@code image(...)} says why.
 */
final class Rendering {
    /** The longest text sent: the worker fits it to its frames, this only keeps a runaway toString small. */
    static final int MAX_TEXT_CHARS = 1 << 20;
    private static final boolean DESKTOP = ModuleLayer.boot().findModule("java.desktop").isPresent();
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};
    private static final byte[] JPEG_MAGIC = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF};

    private Rendering() {}

    /** One thing shown: a display kind of gradle_repl/display_kinds.py, its MIME type, and its text or bytes. */
    static final class Item {
        final String kind;
        final String mime;
        final String text;
        final byte[] bytes;

        Item(String kind, String mime, String text, byte[] bytes) {
            this.kind = kind;
            this.mime = mime;
            this.text = text;
            this.bytes = bytes;
        }

        boolean isImage() {
            return bytes != null;
        }

        /** What it costs of the snippet's output limit. */
        long size() {
            return bytes != null ? bytes.length : text.length();
        }

        /** Its fields after a message's own: kind, MIME type, text (null for an image), bytes (null for text). */
        Wire.Out message(Wire.Out out) {
            return out.text(kind).text(mime).text(text).bytes(bytes);
        }
    }

    static Item text(String kind, String mime, String text) {
        return new Item(kind, mime, text, null);
    }

    static Item image(byte[] bytes, String mime) {
        return new Item("image", mime, null, bytes);
    }

    /** A value as the facade's Renderer shows it. */
    static Item of(Object value) {
        if (value instanceof byte[]) {
            String mime = imageMime((byte[]) value);
            if (mime != null) {
                return image((byte[]) value, mime);
            }
        }
        if (DESKTOP && value != null && Images.isDrawn(value)) {
            return image(Images.encode(value, "image/png"), "image/png");
        }
        return text("text", "text/plain", text(value));
    }

    /** A drawn image encoded as {@code mime} (image/png or image/jpeg). */
    static Item drawn(Object image, String mime) {
        if (!DESKTOP) {
            throw new UnsupportedOperationException("this JVM has no java.desktop module, so it cannot encode images");
        }
        return image(Images.encode(image, mime), mime);
    }

    /** The value's text (SnippetValues.text), capped, or what its toString() threw. */
    static String text(Object value) {
        String text;
        try {
            text = SnippetValues.text(value);
        } catch (Throwable t) {
            text = "<toString() threw " + t + ">";
        }
        return text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text;
    }

    private static String imageMime(byte[] bytes) {
        return startsWith(bytes, PNG_MAGIC) ? "image/png" : startsWith(bytes, JPEG_MAGIC) ? "image/jpeg" : null;
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Everything that links to java.desktop, loaded only where the module is there. */
    private static final class Images {
        static boolean isDrawn(Object value) {
            return value instanceof BufferedImage;
        }

        static byte[] encode(Object value, String mime) {
            BufferedImage image = (BufferedImage) value;
            String format = "image/jpeg".equals(mime) ? "jpg" : "png";
            // JPEG has no alpha channel: ImageIO silently writes nothing for ARGB images.
            BufferedImage source = format.equals("jpg") && image.getColorModel().hasAlpha() ? withoutAlpha(image) : image;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                if (!ImageIO.write(source, format, out)) {
                    throw new IllegalArgumentException("no ImageIO writer for " + mime);
                }
            } catch (IOException e) {
                throw new IllegalStateException("could not encode the image as " + mime, e);
            }
            return out.toByteArray();
        }

        private static BufferedImage withoutAlpha(BufferedImage image) {
            BufferedImage rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
            java.awt.Graphics2D graphics = rgb.createGraphics();
            graphics.drawImage(image, 0, 0, null);
            graphics.dispose();
            return rgb;
        }
    }
}
