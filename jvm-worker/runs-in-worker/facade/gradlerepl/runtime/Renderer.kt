package gradlerepl.runtime

import gradlerepl.both.DisplayKinds
import gradlerepl.both.DrawnImages
import gradlerepl.both.ImageBytes
import gradlerepl.both.ValueText
import java.awt.image.BufferedImage
import javax.imageio.ImageIO

/**
 * Turns a value into the display event a person would expect to see for it: images (AWT's, Compose's, Skia's) as
 * PNG, everything else as text.
 */
object Renderer {
    @JvmStatic
    fun render(value: Any?): ReplEvent = when (value) {
        is BufferedImage -> png(encode(value, DisplayKinds.PNG))
        is ByteArray -> ImageBytes.mime(value)?.let { ReplEvent(ReplEventKind.DISPLAY, it, null, value, DisplayKinds.IMAGE) }
            ?: text(ValueText.of(value))
        null, is String, is Array<*> -> text(ValueText.of(value))
        else -> (if (value.javaClass.isArray) null else LibraryImages.png(value))?.let(::png) ?: text(ValueText.of(value))
    }

    /** A drawn image's bytes as [mime] (the rule both JVM sides share: DrawnImages). */
    @JvmStatic
    fun encode(img: BufferedImage, mime: String): ByteArray = DrawnImages.encode(img, mime)

    /**
     * Re-encodes an image as PNG at half the size, again and again, until it fits [maxBytes];
     * null when it cannot be read or still does not fit at a few pixels.
     */
    @JvmStatic
    fun fitImage(bytes: ByteArray, maxBytes: Int): ByteArray? {
        var img = ImageIO.read(bytes.inputStream()) ?: return null
        while (img.width > 8 && img.height > 8) {
            val smaller = BufferedImage(img.width / 2, img.height / 2, BufferedImage.TYPE_INT_ARGB)
            smaller.createGraphics().apply {
                setRenderingHint(java.awt.RenderingHints.KEY_INTERPOLATION, java.awt.RenderingHints.VALUE_INTERPOLATION_BILINEAR)
                drawImage(img, 0, 0, smaller.width, smaller.height, null)
                dispose()
            }
            img = smaller
            val encoded = encode(img, DisplayKinds.PNG)
            if (encoded.size <= maxBytes) return encoded
        }
        return null
    }

    private fun png(bytes: ByteArray) = ReplEvent(ReplEventKind.DISPLAY, DisplayKinds.PNG, null, bytes, DisplayKinds.IMAGE)

    private fun text(s: String) = ReplEvent(ReplEventKind.DISPLAY, DisplayKinds.TEXT_MIME, s, null, DisplayKinds.TEXT)
}
