package gradlerepl.both;

/**
 * The display kinds and their MIME types as the JVM sides name them: a copy of bridge/gradle_repl/display_kinds.py's
 * table, which tests/test_display_kinds.py checks this class against (jvm-worker/runs-in-both).
 */
public final class DisplayKinds {
    public static final String TEXT = "text";
    public static final String MARKDOWN = "markdown";
    public static final String HTML = "html";
    public static final String IMAGE = "image";

    public static final String TEXT_MIME = "text/plain";
    public static final String MARKDOWN_MIME = "text/markdown";
    public static final String HTML_MIME = "text/html";
    /** An image's MIME type where its maker names none; JPEG is the other format images are shown in. */
    public static final String IMAGE_MIME = "image/png";

    public static final String PNG = "image/png";
    public static final String JPEG = "image/jpeg";

    private DisplayKinds() {}
}
