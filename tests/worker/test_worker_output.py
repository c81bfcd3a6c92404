"""What the docs promise of a session's replies, each checked on a real worker: what a snippet prints arrives whole
up to the output limit, in frames within the frame limit; the caps say how much they cut,
JPEG images come back as images, @file:Repository adds a repository and an unreachable one is a compile error,
and a snippet still compiling when stopped never runs."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

from PIL import Image

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import (
    DEFAULT_FRAME_LIMIT_BYTES,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DisplayFrame,
    ErrorResult,
    StreamFrame,
    SuccessResult,
)
from gradle_repl.host.handle import Reply
from support.filerepository import file_repository
from support.workerclaims import (
    SLOW_TO_COMPILE,
    STOPPED_SNIPPET,
    assert_the_stopped_snippet_never_ran_and_its_classes_are_kept,
)
from support.workers import SyncWorker

# A 50-byte line (49 characters and its line end) numbered by `it`: "line 000042------…".
LINE_OF_50 = '"line " + it.toString().padStart(6, \'0\') + "-".repeat(38)'
JPEG = 'val jpeg = java.io.ByteArrayOutputStream()\njavax.imageio.ImageIO.write(java.awt.image.BufferedImage(7, 4, 1), "jpg", jpeg)\n'


def test_a_block_over_the_limit_is_cut_and_the_cut_is_counted(sample_worker: SyncWorker) -> None:
    """300 KB as the value: the block arrives within the per-block limit, note included, and its note names every
    byte that went (the same number the reply counts); printed blocks keep within the limit too."""
    value = sample_worker.eval('"x".repeat(300_000)').result
    assert isinstance(value, SuccessResult), value
    assert value.value is not None and len(value.value.data.encode()) <= DEFAULT_FRAME_LIMIT_BYTES
    shown = value.value.data.count("x")
    note = re.search(r"… \[(\d+) bytes truncated\]$", value.value.data)
    assert note is not None and int(note.group(1)) == 300_000 - shown == value.truncated_bytes, (
        note,
        shown,
        value.truncated_bytes,
    )
    printed = sample_worker.eval('print("x".repeat(300_000))\n1')
    assert all(len(frame.data.encode()) <= DEFAULT_FRAME_LIMIT_BYTES for frame in printed.frames)
    delivered = sum(frame.data.count("x") for frame in printed.frames)
    assert printed.result.truncated_bytes == 300_000 - delivered, (printed.result.truncated_bytes, delivered)


def _printed(reply: Reply) -> str:
    """What the reply's frames carry of stdout, every frame checked to be within the frame limit."""
    assert all(
        isinstance(frame, StreamFrame) and len(frame.data.encode()) <= DEFAULT_FRAME_LIMIT_BYTES
        for frame in reply.frames
    )
    return "".join(frame.data for frame in reply.frames)


def test_500_kb_printed_fast_arrives_whole_in_frames_within_the_limit(sample_worker: SyncWorker) -> None:
    """10,000 lines of 50 bytes printed in a tight loop, far more than a frame between two of the worker's polls: all
    500,000 bytes arrive, the last line last, nothing counted as cut, in frames each within the frame limit."""
    reply = sample_worker.eval(f"repeat(10_000) {{ println({LINE_OF_50}) }}")
    printed = _printed(reply)
    assert len(printed.encode()) == 500_000 and printed.endswith(f"line 009999{'-' * 38}\n"), printed[-100:]
    assert reply.result.truncated_bytes == 0 and len(reply.frames) >= 3


def test_2_mb_printed_is_cut_at_the_output_limit_and_the_cut_counted_exactly(sample_worker: SyncWorker) -> None:
    """40,000 lines of 50 bytes: the first 1,000,000 bytes (the output limit) arrive, the other 1,000,000 are counted;
    one write whose allowance ends inside a 2-byte character drops that character whole, counted, never a U+FFFD."""
    reply = sample_worker.eval(f"repeat(40_000) {{ println({LINE_OF_50}) }}")
    printed = _printed(reply)
    assert len(printed.encode()) == DEFAULT_OUTPUT_LIMIT_BYTES and printed.endswith(f"line 019999{'-' * 38}\n")
    assert reply.result.truncated_bytes == 2_000_000 - DEFAULT_OUTPUT_LIMIT_BYTES
    straddling = sample_worker.eval(
        f'System.out.write(("a".repeat({DEFAULT_OUTPUT_LIMIT_BYTES - 1}) + "é".repeat(10)).toByteArray())'
    )
    assert _printed(straddling) == "a" * (DEFAULT_OUTPUT_LIMIT_BYTES - 1) and straddling.result.truncated_bytes == 20


def test_a_multi_byte_character_at_a_frame_split_survives(sample_worker: SyncWorker) -> None:
    """One write (one poll's text) with no line end in it and a 3-byte character across the frame limit: split there,
    the character whole at the start of the second frame."""
    reply = sample_worker.eval(
        f'System.out.write(("a".repeat({DEFAULT_FRAME_LIMIT_BYTES - 1}) + "€" + "b".repeat(1_000)).toByteArray())'
    )
    assert _printed(reply) == "a" * (DEFAULT_FRAME_LIMIT_BYTES - 1) + "€" + "b" * 1_000
    assert [frame.data[:1] for frame in reply.frames] == ["a", "€"]


def test_describe_caps_a_value_at_200_characters_and_says_how_many_more(sample_worker: SyncWorker) -> None:
    sample_worker.eval('val longText = "y".repeat(1_000)')
    (declared,) = [d for d in sample_worker.describe().declarations if d.name == "longText"]
    assert declared.value is not None and declared.value.startswith("y" * 200)
    assert declared.value.endswith("(800 more characters)"), declared.value[-60:]


def test_jpeg_bytes_and_image_with_a_mime_type_come_back_as_jpeg_images(sample_worker: SyncWorker) -> None:
    last = sample_worker.eval(JPEG + "jpeg.toByteArray()")
    assert isinstance(last.result, SuccessResult), last.result
    assert (
        last.result.value is not None and last.result.value.kind == "image" and last.result.value.mime == "image/jpeg"
    )
    assert Image.open(io.BytesIO(base64.b64decode(last.result.value.data))).format == "JPEG"
    shown = sample_worker.eval(JPEG + 'image(jpeg.toByteArray(), mime = "image/jpeg")')
    (frame,) = [f for f in shown.frames if getattr(f, "kind", None) == "image"]
    assert isinstance(frame, DisplayFrame), frame
    assert frame.mime == "image/jpeg" and Image.open(io.BytesIO(base64.b64decode(frame.data))).size == (7, 4)


def test_file_repository_adds_a_repository_and_an_unreachable_one_is_a_compile_error(
    sample_env: ReplEnvironment, sample_worker: SyncWorker, tmp_path: Path
) -> None:
    """A repository named in a snippet is searched for its @file:DependsOn; one that can't be reached fails that
    snippet at compile time and the session goes on."""
    with file_repository(
        tmp_path, sample_env.java_home, package="namedrepo", greeting="from a named repository"
    ) as repo:
        added = sample_worker.eval(
            f'@file:Repository("{repo.url}")\n@file:DependsOn("{repo.coordinate}")\nnamedrepo.Greeting.hello()'
        )
        assert isinstance(added.result, SuccessResult), added.result
        assert added.result.value is not None and added.result.value.data == "from a named repository", added.result
        unreachable = sample_worker.eval(
            f'@file:Repository("http://127.0.0.1:9/nowhere")\n@file:DependsOn("{repo.group}.nowhere:lib:1.0")\n1'
        )
        assert isinstance(unreachable.result, ErrorResult), unreachable.result
        assert unreachable.result.error_kind == "compile" and f"{repo.group}.nowhere" in unreachable.result.message
        assert sample_worker.value("namedrepo.Greeting.hello().length") == "23"


def test_a_snippet_stopped_while_compiling_never_runs(sample_worker: SyncWorker) -> None:
    """Compilation can't be interrupted: a snippet timed out while it compiles ends after compiling, unrun.
    Thirty functions take several times the 0.1 s timeout to compile on a quiet machine, yet well under the ~10 s the
    host waits for a compile after a stop on one loaded eight times over (a hundred took 10.2 s there at a load of 17
    on 2 cores and lost the session; three hundred took 10 s at a load of five times the cores).
    The REPL keeps it in its history all the same: its classes are the session's (a later snippet makes
    one of its class, and describe reads it), and a later use of its vals says it never ran."""
    reply = sample_worker.eval(f"{SLOW_TO_COMPILE}\n{STOPPED_SNIPPET}", timeout=0.1)
    assert isinstance(reply.result, ErrorResult), reply.result
    assert reply.result.error_kind == "timeout" and "it never ran" in reply.result.message, reply.result.message
    assert_the_stopped_snippet_never_ran_and_its_classes_are_kept(sample_worker)


def test_a_snippet_cancelled_while_compiling_never_runs_and_its_classes_are_kept(sample_worker: SyncWorker) -> None:
    """A client's cancel that reaches the worker while the snippet compiles stops it as a timeout does."""
    sample_worker.cancel_while_compiling(f"{SLOW_TO_COMPILE}\n{STOPPED_SNIPPET}")
    assert_the_stopped_snippet_never_ran_and_its_classes_are_kept(sample_worker)


def test_a_snippet_cancelled_as_soon_as_it_is_sent_never_runs(sample_worker: SyncWorker) -> None:
    """The cancel reaches the worker right behind its snippet, often before the snippet begins: remembered for it, the
    snippet never runs (whether it was stopped before it compiled or while), and the session's state is kept."""
    sample_worker.eval("val declaredBeforeTheCancel = 7")
    sample_worker.cancel_at_once(f'{SLOW_TO_COMPILE}\nSystem.setProperty("gradle-repl.ran-at-once", "yes")')
    assert sample_worker.value('System.getProperty("gradle-repl.ran-at-once") ?: "never"') == "never"
    assert sample_worker.value("declaredBeforeTheCancel") == "7"


def test_a_value_class_result_reads_as_the_program_shows_it(sample_worker: SyncWorker) -> None:
    """The REPL hands a value class's value over unboxed (a Duration as its Long); it is shown boxed again."""
    assert sample_worker.value("import kotlin.time.Duration.Companion.seconds\n5.seconds") == "5s"
    assert sample_worker.value("Result.success(1)") == "Success(1)"
    assert sample_worker.value('runCatching { error("no") }') == "Failure(java.lang.IllegalStateException: no)"
    sample_worker.eval("@JvmInline value class Id(val v: Int)")
    assert sample_worker.value("Id(3)") == "Id(v=3)"
    assert sample_worker.value("listOf(Id(4))") == "[Id(v=4)]"


def test_describe_names_a_value_class_val_by_its_declared_type(sample_worker: SyncWorker) -> None:
    """A value class's field holds the underlying value (a Duration's is a long): describe says what the snippet
    declared, a class of the session's own by the name it was written with, and other types as before; the values
    read as the program shows them (boxed again), not as the underlying value."""
    sample_worker.eval("@JvmInline value class Meters(val v: Int)")
    sample_worker.eval(
        "import kotlin.time.Duration.Companion.seconds\nval waited = 5.seconds\nvar distance = Meters(3)\nval count = 2\n"
        'val names: List<String>? = listOf("a")'
    )
    signatures = {d.name: (d.signature, d.value) for d in sample_worker.describe().declarations}
    assert signatures["waited"] == ("val waited: kotlin.time.Duration", "5s"), signatures
    assert signatures["distance"] == ("var distance: Meters", "Meters(v=3)"), signatures
    assert signatures["count"][0] == "val count: kotlin.Int" and signatures["names"][0].startswith(
        "val names: kotlin.collections.List<"
    ), signatures


def test_a_runtime_errors_stack_names_snippets_as_describe_numbers_them(sample_worker: SyncWorker) -> None:
    """A function from one snippet failing in another: both frames read as the user's snippets and lines."""
    sample_worker.eval('fun failsOnPurpose(): Int = error("on purpose")')
    numbers = {d.name: d.snippet for d in sample_worker.describe().declarations}
    stack = sample_worker.failed("val ignored = 1\nfailsOnPurpose()").stack
    declared = numbers["failsOnPurpose"]
    assert f"    at failsOnPurpose (snippet {declared}, line 1)" in stack.splitlines(), stack
    assert f"    at snippet {declared + 1}, line 2" in stack.splitlines(), stack
    assert "_repl" not in stack and "$$eval" not in stack, stack
