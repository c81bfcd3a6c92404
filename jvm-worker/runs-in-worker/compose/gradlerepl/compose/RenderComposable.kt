package gradlerepl.compose

import androidx.compose.runtime.Composable
import androidx.compose.ui.graphics.ImageBitmap
import androidx.compose.ui.graphics.toComposeImageBitmap
import androidx.compose.ui.renderComposeScene
import androidx.compose.ui.unit.Density

// The facade's Compose add-on: compiled (with the Compose compiler plugin, against the project's own Compose) and
// put on the snippets' classpath only in sessions whose project has Compose UI for the JVM; a default import there.

/**
 * Composes [content] on a headless [width]×[height] pixel scene (Compose's `ImageComposeScene`, as
 * `renderComposeScene` does) and returns what it drew. As a snippet's value it shows as a PNG image; its pixels
 * read as usual (`toPixelMap()`). The scene has no background: pixels nothing drew stay transparent.
 *
 * @param density pixels per dp (1 = a dp is a pixel; 2 = a high-density screen).
 */
fun renderComposable(
    width: Int = 400,
    height: Int = 300,
    density: Float = 1f,
    content: @Composable () -> Unit,
): ImageBitmap {
    require(width > 0 && height > 0) { "renderComposable needs a positive size, not ${width}x$height" }
    val image = renderComposeScene(width, height, Density(density), content)
    try {
        return image.toComposeImageBitmap()
    } finally {
        image.close()
    }
}
