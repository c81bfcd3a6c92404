package palette

import androidx.compose.foundation.background
import androidx.compose.foundation.layout.Box
import androidx.compose.foundation.layout.Column
import androidx.compose.foundation.layout.Row
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.size
import androidx.compose.foundation.text.BasicText
import androidx.compose.runtime.Composable
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.remember
import androidx.compose.runtime.setValue
import androidx.compose.ui.Modifier
import androidx.compose.ui.graphics.Canvas
import androidx.compose.ui.graphics.Color
import androidx.compose.ui.graphics.ImageBitmap
import androidx.compose.ui.graphics.Paint
import androidx.compose.ui.geometry.Rect
import androidx.compose.ui.unit.dp
import androidx.compose.ui.window.Window
import androidx.compose.ui.window.application

/** A named colour of the palette. */
data class Swatch(val name: String, val color: Color)

val swatches = listOf(Swatch("red", Color.Red), Swatch("green", Color.Green), Swatch("blue", Color.Blue))

/** One swatch as a box of its colour. */
@Composable
fun SwatchBox(swatch: Swatch, width: Int = 40, height: Int = 30) {
    Box(Modifier.size(width.dp, height.dp).background(swatch.color))
}

/** The app's one screen: every swatch in a row, the selected one named below. */
@Composable
fun PaletteScreen() {
    var selected by remember { mutableStateOf(swatches.first()) }
    Column(Modifier.fillMaxSize().background(Color.White)) {
        Row { swatches.forEach { SwatchBox(it) } }
        BasicText("selected: ${selected.name}")
    }
}

/** A swatch drawn straight into a bitmap, without composition (an icon, a thumbnail). */
fun swatchBitmap(swatch: Swatch, width: Int, height: Int): ImageBitmap {
    val bitmap = ImageBitmap(width, height)
    Canvas(bitmap).drawRect(Rect(0f, 0f, width.toFloat(), height.toFloat()), Paint().apply { color = swatch.color })
    return bitmap
}

fun main() = application {
    Window(onCloseRequest = ::exitApplication, title = "Palette") { PaletteScreen() }
}
