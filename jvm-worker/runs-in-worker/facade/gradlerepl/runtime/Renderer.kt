package gradlerepl.runtime

import java.awt.image.BufferedImage
import java.io.ByteArrayOutputStream
import javax.imageio.ImageIO

/**
 * Turns a value into the display event a person would expect to see for it: images (AWT's, Compose's, Skia's) as
 * PNG, everything else as text.
 */
object Renderer {
    private val PNG_MAGIC = byteArrayOf(0x89.toByte(), 'P'.code.toByte(), 'N'.code.toByte(), 'G'.code.toByte())
    private val JPEG_MAGIC = byteArrayOf(0xFF.toByte(), 0xD8.toByte(), 0xFF.toByte())

    @JvmStatic
    fun render(value: Any?): ReplEvent = when (value) {
        null -> text("null")
        is String -> text(value)
        is BufferedImage -> png(encode(value, "image/png"))
        is ByteArray -> imageMime(value)?.let { ReplEvent(ReplEventKind.DISPLAY, it, null, value, "image") }
            ?: text(value.contentToString())
        is Array<*> -> text(value.contentDeepToString())
        is IntArray -> text(value.contentToString())
        is LongArray -> text(value.contentToString())
        is DoubleArray -> text(value.contentToString())
        is FloatArray -> text(value.contentToString())
        is BooleanArray -> text(value.contentToString())
        is CharArray -> text(value.contentToString())
        is ShortArray -> text(value.contentToString())
        else -> LibraryImages.png(value)?.let(::png) ?: text(value.toString())
    }

    @JvmStatic
    fun encode(img: BufferedImage, mime: String): ByteArray {
        val format = if (mime == "image/jpeg") "jpg" else "png"
        val out = ByteArrayOutputStream()
        // JPEG has no alpha channel: ImageIO silently writes nothing for ARGB images.
        val source = if (format == "jpg" && img.colorModel.hasAlpha()) dropAlpha(img) else img
        check(ImageIO.write(source, format, out)) { "no ImageIO writer for $mime" }
        return out.toByteArray()
    }

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
            val encoded = encode(img, "image/png")
            if (encoded.size <= maxBytes) return encoded
        }
        return null
    }

    private fun dropAlpha(img: BufferedImage): BufferedImage {
        val rgb = BufferedImage(img.width, img.height, BufferedImage.TYPE_INT_RGB)
        rgb.createGraphics().apply { drawImage(img, 0, 0, null); dispose() }
        return rgb
    }

    private fun imageMime(bytes: ByteArray): String? = when {
        bytes.startsWith(PNG_MAGIC) -> "image/png"
        bytes.startsWith(JPEG_MAGIC) -> "image/jpeg"
        else -> null
    }

    private fun ByteArray.startsWith(prefix: ByteArray) =
        size >= prefix.size && prefix.indices.all { this[it] == prefix[it] }

    private fun png(bytes: ByteArray) = ReplEvent(ReplEventKind.DISPLAY, "image/png", null, bytes, "image")

    private fun text(s: String) = ReplEvent(ReplEventKind.DISPLAY, "text/plain", s, null, "text")
}
