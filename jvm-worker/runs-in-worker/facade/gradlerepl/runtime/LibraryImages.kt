package gradlerepl.runtime

import java.awt.image.BufferedImage
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method

/**
 * Images of libraries the facade is not compiled against, read by reflection through the value's own class
 * loader: Compose's `ImageBitmap` (its pixels, through the interface's own `readPixels`) and Skia's `Image` and
 * `Bitmap` (encoded by Skia itself). Nothing here links to Compose or Skia: a project without them never loads
 * a class of theirs.
 */
internal object LibraryImages {
    private const val IMAGE_BITMAP = "androidx.compose.ui.graphics.ImageBitmap"
    private const val SKIA_IMAGE = "org.jetbrains.skia.Image"
    private const val SKIA_BITMAP = "org.jetbrains.skia.Bitmap"

    /** The value as a drawn image, or null when it is none of these. */
    fun png(value: Any): ByteArray? {
        val type = value.javaClass
        return when {
            IMAGE_BITMAP in supertypes(type) -> Renderer.encode(imageBitmapPixels(value, type), gradlerepl.both.DisplayKinds.PNG)
            isClass(type, SKIA_IMAGE) -> skiaPng(value, type.classLoader)
            isClass(type, SKIA_BITMAP) -> {
                val image = skiaImageOf(value, type.classLoader)
                try {
                    skiaPng(image, type.classLoader)
                } finally {
                    call(image, "close")
                }
            }
            else -> null
        }
    }

    /** Every class and interface the type is, by name. */
    private fun supertypes(type: Class<*>): Set<String> {
        val names = HashSet<String>()
        val pending = ArrayDeque<Class<*>>().apply { add(type) }
        while (pending.isNotEmpty()) {
            val next = pending.removeFirst()
            if (!names.add(next.name)) continue
            next.superclass?.let(pending::add)
            pending.addAll(next.interfaces)
        }
        return names
    }

    private fun isClass(type: Class<*>, name: String): Boolean =
        generateSequence(type) { it.superclass }.any { it.name == name }

    /** An ImageBitmap's pixels (non-premultiplied ARGB, as `readPixels` gives them on every platform). */
    private fun imageBitmapPixels(bitmap: Any, type: Class<*>): BufferedImage {
        val api = Class.forName(IMAGE_BITMAP, false, type.classLoader)
        val width = api.getMethod("getWidth").invoke(bitmap) as Int
        val height = api.getMethod("getHeight").invoke(bitmap) as Int
        val pixels = IntArray(width * height)
        val read = api.getMethod(
            "readPixels", IntArray::class.java, Int::class.java, Int::class.java, Int::class.java, Int::class.java,
            Int::class.java, Int::class.java,
        )
        invoke(read, bitmap, pixels, 0, 0, width, height, 0, width)
        return BufferedImage(width, height, BufferedImage.TYPE_INT_ARGB).apply { setRGB(0, 0, width, height, pixels, 0, width) }
    }

    /** `Image.encodeToData(EncodedImageFormat.PNG, 100)!!.bytes`. */
    private fun skiaPng(image: Any, loader: ClassLoader?): ByteArray {
        val formats = Class.forName("org.jetbrains.skia.EncodedImageFormat", true, loader)
        val png = formats.enumConstants.first { (it as Enum<*>).name == "PNG" }
        val encode = image.javaClass.getMethod("encodeToData", formats, Int::class.java)
        val data = invoke(encode, image, png, 100) ?: error("Skia could not encode this image as PNG")
        try {
            return data.javaClass.getMethod("getBytes").invoke(data) as ByteArray
        } finally {
            call(data, "close")
        }
    }

    /** `Image.makeFromBitmap(bitmap)`: a Bitmap is pixels in memory, which Skia encodes through an Image. */
    private fun skiaImageOf(bitmap: Any, loader: ClassLoader?): Any {
        val images = Class.forName(SKIA_IMAGE, true, loader)
        val companion = images.getField("Companion").get(null)
        val make = companion.javaClass.getMethod("makeFromBitmap", Class.forName(SKIA_BITMAP, false, loader))
        return invoke(make, companion, bitmap) ?: error("Skia could not make an image of this bitmap")
    }

    private fun call(target: Any, name: String) {
        target.javaClass.methods.firstOrNull { it.name == name && it.parameterCount == 0 }?.let { invoke(it, target) }
    }

    /** The library's own exception, not reflection's wrapper, is what the user should read. */
    private fun invoke(method: Method, target: Any?, vararg args: Any?): Any? =
        try {
            method.invoke(target, *args)
        } catch (e: InvocationTargetException) {
            throw e.targetException
        }
}
