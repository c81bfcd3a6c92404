package gradlerepl.runtime

import java.awt.image.BufferedImage

// The display API every snippet sees without imports (it is a default import of the REPL).

/** Shows [value] the way a snippet's last expression is shown. */
fun display(value: Any?) = ReplOutput.emit(Renderer.render(value))

/** Shows Markdown text. */
fun markdown(md: String) = ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, "text/markdown", md, null, "markdown"))

/** Shows an HTML fragment; clients treat it as untrusted text. */
fun html(fragment: String) = ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, "text/html", fragment, null, "html"))

/** Shows encoded image bytes, PNG unless [mime] says otherwise. */
fun image(bytes: ByteArray, mime: String = "image/png") =
    ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, mime, null, bytes, "image"))

/** Shows a drawn image, encoded as [mime] (image/png or image/jpeg). */
fun image(img: BufferedImage, mime: String = "image/png") =
    ReplOutput.emit(ReplEvent(ReplEventKind.DISPLAY, mime, null, Renderer.encode(img, mime), "image"))
