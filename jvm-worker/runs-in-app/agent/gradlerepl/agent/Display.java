package gradlerepl.agent;

import gradlerepl.both.DisplayKinds;
import java.awt.image.BufferedImage;

/**
 * The display API of an attached session's snippets: the same calls as a session's own ({@code display},
 * {@code markdown}, {@code html}, {@code image}), imported into every snippet by name. The snippets compile against
 * the agent's jar; at run time their loaders hand them this class ({@link SessionClasses}, every snippet loader's
 * parent), whatever the application's loaders see. What is shown goes to the session of the calling snippet's
 * thread, after what it printed before.
 * Java methods take no named or default arguments: {@code image(bytes, "image/jpeg")}, not {@code mime = ...}.
 */
public final class Display {
    private Display() {}

    /** Shows {@code value} the way a snippet's last expression is shown. */
    public static void display(Object value) {
        sink("display").display(Rendering.of(value));
    }

    /** Shows Markdown text. */
    public static void markdown(String md) {
        sink("markdown").display(Rendering.text(DisplayKinds.MARKDOWN, DisplayKinds.MARKDOWN_MIME, md));
    }

    /** Shows an HTML fragment; clients treat it as untrusted text. */
    public static void html(String fragment) {
        sink("html").display(Rendering.text(DisplayKinds.HTML, DisplayKinds.HTML_MIME, fragment));
    }

    /** Shows encoded PNG image bytes. */
    public static void image(byte[] bytes) {
        image(bytes, DisplayKinds.IMAGE_MIME);
    }

    /** Shows encoded image bytes of the given MIME type. */
    public static void image(byte[] bytes, String mime) {
        sink("image").display(Rendering.image(bytes, mime));
    }

    /** Shows a drawn image as PNG. */
    public static void image(BufferedImage image) {
        image(image, DisplayKinds.IMAGE_MIME);
    }

    /** Shows a drawn image, encoded as {@code mime} (image/png or image/jpeg). */
    public static void image(BufferedImage image, String mime) {
        SnippetSink sink = sink("image");
        sink.display(Rendering.drawn(image, mime));
    }

    private static SnippetSink sink(String call) {
        SnippetSink sink = SnippetOutput.current();
        if (sink == null) {
            throw new IllegalStateException(call + "() shows things from a snippet's own thread only; "
                    + Thread.currentThread().getName() + " is not one (print there, or hand the value back to the snippet)");
        }
        return sink;
    }
}
