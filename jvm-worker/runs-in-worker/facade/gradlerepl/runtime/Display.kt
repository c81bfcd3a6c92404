package gradlerepl.runtime

import gradlerepl.both.DisplayKinds
import java.awt.image.BufferedImage

// The display API every snippet sees without imports (it is a default import of the REPL).

/** Shows [value] the way a snippet's last expression is shown. */
fun display(value: Any?) = ReplOutput.emit(Renderer.render(value))

/** Shows Markdown text. */
fun markdown(md: String) = ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, DisplayKinds.MARKDOWN_MIME, md, null, DisplayKinds.MARKDOWN))

/** Shows an HTML fragment; clients treat it as untrusted text. */
fun html(fragment: String) = ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, DisplayKinds.HTML_MIME, fragment, null, DisplayKinds.HTML))

/** Shows encoded image bytes, PNG unless [mime] says otherwise. */
fun image(bytes: ByteArray, mime: String = DisplayKinds.IMAGE_MIME) =
    ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, mime, null, bytes, DisplayKinds.IMAGE))

/** Shows a drawn image, encoded as [mime] (image/png or image/jpeg). */
fun image(img: BufferedImage, mime: String = DisplayKinds.IMAGE_MIME) =
    ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, mime, null, Renderer.encode(img, mime), DisplayKinds.IMAGE))
