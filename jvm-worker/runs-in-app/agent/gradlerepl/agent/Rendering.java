package gradlerepl.agent;

import gradlerepl.both.DisplayKinds;
import gradlerepl.both.DrawnImages;
import gradlerepl.both.ImageBytes;
import gradlerepl.both.ValueText;

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
        return new Item(DisplayKinds.IMAGE, mime, null, bytes);
    }

    /** A value as the facade's Renderer shows it. */
    static Item of(Object value) {
        if (value instanceof byte[]) {
            String mime = ImageBytes.mime((byte[]) value);
            if (mime != null) {
                return image((byte[]) value, mime);
            }
        }
        if (DESKTOP && value != null && DrawnImages.isDrawn(value)) {
            return image(DrawnImages.encode(value, DisplayKinds.PNG), DisplayKinds.PNG);
        }
        return text(DisplayKinds.TEXT, DisplayKinds.TEXT_MIME, text(value));
    }

    /** A drawn image encoded as {@code mime} (image/png or image/jpeg). */
    static Item drawn(Object image, String mime) {
        if (!DESKTOP) {
            throw new UnsupportedOperationException("this JVM has no java.desktop module, so it cannot encode images");
        }
        return image(DrawnImages.encode(image, mime), mime);
    }

    /** The value's text (the rule both JVM sides share: ValueText), capped, or what its toString() threw. */
    static String text(Object value) {
        String text;
        try {
            text = ValueText.of(value);
        } catch (Throwable t) {
            text = "<toString() threw " + t + ">";
        }
        return text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text;
    }
}
