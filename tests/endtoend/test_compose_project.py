"""A Compose Multiplatform desktop app built with Maven (tests/projects/maven-compose), through the real MCP server
over stdio and one session: the Compose compiler plugin the build applies reaches snippets, so they declare
@Composable functions; Compose's ImageBitmap and Skia's Image come back as PNG ImageContent; renderComposable draws
a composable headlessly, and its pixels are what the composable drew."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator

import pytest
from mcp import Client
from mcp.types import CallToolResult, ImageContent
from PIL import Image

from support.paths import PROJECTS
from support.toolcalls import server_params, text

pytestmark = [pytest.mark.anyio, pytest.mark.jvm]

PROJECT = str(PROJECTS / "maven-compose")
SESSION = "compose"
RED, WHITE, GREEN = (255, 0, 0, 255), (255, 255, 255, 255), (0, 255, 0, 255)
# A screen of the kind a Compose app's tests render: a 40×30 dp red box in the top left corner of a white screen.
RED_BOX = """
import androidx.compose.foundation.background
import androidx.compose.foundation.layout.Box
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.size
import androidx.compose.runtime.Composable
import androidx.compose.ui.Modifier
import androidx.compose.ui.graphics.Color
import androidx.compose.ui.unit.dp

@Composable
fun RedBoxOnWhite() {
    Box(Modifier.fillMaxSize().background(Color.White)) {
        Box(Modifier.size(40.dp, 30.dp).background(Color.Red))
    }
}
"""


@pytest.fixture(scope="module")
async def compose() -> AsyncIterator[Client]:
    """One server, one session on the Compose project, for the whole module."""
    async with Client(server_params(), read_timeout_seconds=600) as client:
        yield client


async def run(client: Client, code: str) -> CallToolResult:
    return await client.call_tool(
        "run_kotlin_snippet", {"projectRoot": PROJECT, "code": code, "buildTool": "maven", "sessionId": SESSION}
    )


def image_of(result: CallToolResult) -> Image.Image:
    """The one image of a reply: MCP ImageContent, base64 PNG, decoded."""
    assert not result.is_error, text(result)
    images = [block for block in result.content if isinstance(block, ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png", result.content
    return Image.open(io.BytesIO(base64.b64decode(images[0].data))).convert("RGBA")


def alpha(image: Image.Image, at: tuple[int, int]) -> float:
    """An RGBA pixel's alpha."""
    pixel = image.getpixel(at)
    assert isinstance(pixel, tuple), pixel
    return pixel[3]


async def test_the_builds_compose_compiler_plugin_reaches_the_session(compose: Client) -> None:
    """The Maven build applies the plugin as a dependency of the kotlin-maven-plugin; the session reports it, at the
    REPL's Kotlin version, and nothing missing (the project has Skiko's native library for this machine)."""
    described = text(
        await compose.call_tool("resolve_gradle_environment", {"projectRoot": PROJECT, "buildTool": "maven"})
    )
    assert "kotlin-compose-compiler-plugin-embeddable-2.3.21" in described, described
    assert "Warning" not in described, described


async def test_an_image_bitmap_from_the_projects_code_comes_back_as_a_png(compose: Client) -> None:
    """The project's own function returns a Compose ImageBitmap: the reply is that image, pixel for pixel."""
    image = image_of(await run(compose, "palette.swatchBitmap(palette.swatches[1], 6, 4)"))
    assert image.size == (6, 4)
    assert {image.getpixel((x, y)) for x in range(6) for y in range(4)} == {GREEN}


async def test_a_fully_qualified_composable_annotation_acts_as_the_imported_one(compose: Client) -> None:
    """`@androidx.compose.runtime.Composable` written out, in a session that has not imported it (this test runs before
    the one that does): the Compose plugin sees a composable (a composable call from elsewhere would not compile), and it
    draws."""
    declared = await run(
        compose,
        (
            "import androidx.compose.foundation.background\nimport androidx.compose.foundation.layout.Box\n"
            "import androidx.compose.foundation.layout.fillMaxSize\nimport androidx.compose.ui.Modifier\n"
            "import androidx.compose.ui.graphics.Color\n"
            "@androidx.compose.runtime.Composable fun GreenFill() { Box(Modifier.fillMaxSize().background(Color.Green)) }"
        ),
    )
    assert not declared.is_error, text(declared)
    image = image_of(await run(compose, "renderComposable(width = 5, height = 4) { GreenFill() }"))
    assert {image.getpixel((x, y)) for x in range(5) for y in range(4)} == {GREEN}


async def test_a_composable_declared_in_a_snippet_renders_as_it_draws(compose: Client) -> None:
    """A @Composable function declared in a snippet (the Compose compiler plugin at work; the session describes it as
    written, not as the plugin lowered it) rendered with renderComposable: a 40×30 red box on white, every pixel
    where the layout puts it."""
    declared = await run(compose, RED_BOX)
    assert not declared.is_error, text(declared)
    described = text(await compose.call_tool("describe_kotlin_session", {"sessionId": SESSION}))
    assert "@Composable fun RedBoxOnWhite(): kotlin.Unit" in described, described
    image = image_of(await run(compose, "renderComposable(width = 60, height = 50) { RedBoxOnWhite() }"))
    assert image.size == (60, 50)
    for x in range(60):
        for y in range(50):
            assert image.getpixel((x, y)) == (RED if x < 40 and y < 30 else WHITE), (x, y)


async def test_the_projects_composables_and_skia_images_render_too(compose: Client) -> None:
    """A composable of the project's own, drawn with Compose's own renderComposeScene (a Skia Image), at twice the
    density, or as a Skia Bitmap, is an image as well; what renderComposable returns is Compose's ImageBitmap, its
    pixels readable; a size that can't be drawn is a clear error."""
    image = image_of(
        await run(
            compose, "androidx.compose.ui.renderComposeScene(20, 10) { palette.SwatchBox(palette.swatches[2], 10, 5) }"
        )
    )
    assert image.size == (20, 10) and image.getpixel((9, 4)) == (0, 0, 255, 255) and alpha(image, (10, 5)) == 0
    dense = image_of(
        await run(compose, "renderComposable(20, 12, density = 2f) { palette.SwatchBox(palette.swatches[0], 5, 3) }")
    )
    assert dense.getpixel((9, 5)) == RED and alpha(dense, (10, 6)) == 0
    bitmap = image_of(
        await run(
            compose,
            "import androidx.compose.ui.graphics.asSkiaBitmap\nrenderComposable(3, 2) { RedBoxOnWhite() }.asSkiaBitmap()",
        )
    )
    assert bitmap.size == (3, 2) and {bitmap.getpixel((x, y)) for x in range(3) for y in range(2)} == {RED}
    pixel = await run(
        compose,
        "import androidx.compose.ui.graphics.toPixelMap\nrenderComposable(4, 4) { RedBoxOnWhite() }.toPixelMap()[3, 3]",
    )
    assert not pixel.is_error and "Color(1.0, 0.0, 0.0, 1.0" in text(pixel), text(pixel)
    assert not any(isinstance(block, ImageContent) for block in pixel.content)
    bad = await run(compose, "renderComposable(width = 0) { }")
    assert bad.is_error and "renderComposable needs a positive size, not 0x300" in text(bad), text(bad)
