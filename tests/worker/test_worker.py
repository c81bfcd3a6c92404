"""The worker runs snippets in a real JVM with the real K2 REPL, against sample-project's real classpath."""

from __future__ import annotations

import base64
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from PIL import Image

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import DisplayFrame, ErrorResult, SuccessResult
from gradle_repl.settings import DEFAULTS
from support.filerepository import FileRepository, file_repository
from support.workerclaims import assert_sealed_types_know_their_inheritors, assert_serializers_through_the_class
from support.workers import SyncWorker, running_worker

pytestmark = pytest.mark.jvm


def test_state_persists_across_snippets(sample_worker: SyncWorker) -> None:
    """vals, funs, classes and imports declared in one snippet are visible in the next."""
    sample_worker.eval("import sample.*\nval base = 40\nfun twice(x: Int) = 2 * x\nclass Box(val v: Int)")
    assert sample_worker.value("twice(base) + Box(2).v + classics.publishedBefore(1930).size") == "84"
    # They reach each other through the facade's state object, not one the REPL generates (ReplDriver: a compile with
    # that one builds the IR of every member of HashMap): the snippet that declared Box is in it.
    assert (
        sample_worker.value("gradlerepl.repl.SnippetInstances.get(Box::class.java.enclosingClass.name) != null")
        == "true"
    )


def test_earlier_snippets_reach_later_ones_through_the_history_index(sample_worker: SyncWorker) -> None:
    """Compilations read earlier snippets from the facade's index of the REPL's history (SnippetHistoryIndex), not by
    walking it in each resolve phase: imports (of the snippet just before too), overloads, a class declared again, a
    type alias, values reach later snippets; what a check or a failed run compiled and took back reaches none."""
    assert sample_worker.process.ready.history_indexed
    sample_worker.succeeded("import java.util.concurrent.atomic.AtomicInteger")
    sample_worker.succeeded('fun pick(x: Int) = "int"')
    sample_worker.succeeded('fun pick(x: String) = "string"')
    sample_worker.succeeded("class Shape(val n: Int)")
    sample_worker.succeeded("class Shape(val label: String)\ntypealias Labels = List<String>")
    assert sample_worker.value('val labels: Labels = listOf(Shape("a").label, pick(1), pick("s"))\nlabels') == (
        "[a, int, string]"
    )
    sample_worker.succeeded("val counted = AtomicInteger(labels.size).incrementAndGet()")
    assert sample_worker.check("val checkedOnly = 1").diagnostics == []
    assert sample_worker.value("counted + 1") == "5"
    sample_worker.failed('val failedOnly = 1\nval wrong: Int = "s"')
    assert "Unresolved reference 'checkedOnly'" in sample_worker.failed("checkedOnly").message
    assert "'failedOnly' was never compiled" in sample_worker.failed("failedOnly").message
    sample_worker.succeeded("import java.util.concurrent.atomic.AtomicLong")
    assert sample_worker.value("AtomicLong(counted.toLong()).get()") == "4"
    sample_worker.succeeded("val fresh = counted")
    sample_worker.succeeded("val fresher = fresh + 1")
    assert sample_worker.value("fresh + fresher + counted") == "13"


def test_snippet_loaders_stay_one_step_from_earlier_snippets(
    sample_worker: SyncWorker,
) -> None:
    """Each snippet's loader sits under one that answers every earlier snippet's classes (SnippetLoaders), not under
    the last snippet's: as many loaders stand above a snippet's class five snippets later, so a class lookup costs no
    more as a session grows. An earlier snippet's class is still the one class by its name and its file a resource."""
    depth = "generateSequence(object {}.javaClass.classLoader) { it.parent }.count()"
    sample_worker.eval("class Early(val n: Int)\nval early = Early(1)")
    before = sample_worker.value(depth)
    for number in range(5):
        sample_worker.eval(f"val filler{number} = {number}")
    assert sample_worker.value(depth) == before
    newest = "object {}.javaClass.classLoader"
    assert (
        sample_worker.value(
            f"early is Early && Class.forName(early.javaClass.name, false, {newest}) === Early::class.java"
            f' && {newest}.getResource(early.javaClass.name.replace(".", "/") + ".class") != null'
        )
        == "true"
    )


def test_redefinition_replaces_val_and_fun(sample_worker: SyncWorker) -> None:
    """As in the Kotlin REPL, a later declaration of the same name wins."""
    sample_worker.eval('val who = "first"\nfun greet() = "hi $who"')
    sample_worker.eval('val who = "second"\nfun greet() = "hello $who"')
    assert sample_worker.value("greet()") == "hello second"


def test_tricky_text_evaluates_exactly(sample_worker: SyncWorker) -> None:
    """Quotes, backslashes, tabs, $-templates, raw strings and non-ASCII survive the whole trip."""
    code = (
        'val name = "Zoë"\n'
        'val raw = """C:\\path\\n\t"quoted" ${\'$\'}notTemplate"""\n'
        'val s = "tab\\there \\"q\\" \\\\ $name ${name.length} 日本語 🎉"\n'
        's + "|" + raw'
    )
    expected = 'tab\there "q" \\ Zoë 3 日本語 🎉|C:\\path\\n\t"quoted" $notTemplate'
    assert sample_worker.value(code) == expected


def test_value_carries_its_kotlin_type(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval("sample.classics.books.first().author")
    assert isinstance(reply.result, SuccessResult), reply.result
    assert reply.result.value is not None
    assert reply.result.value.data == "Author(name=Franz Kafka, born=1883)"
    assert reply.result.value_type == "sample.Author"


def test_describe_shows_declarations_as_the_user_wrote_them(sample_worker: SyncWorker) -> None:
    """What a session holds reads in the user's names: snippet classes without the REPL's class for their snippet
    (`_6_repl$Kept`), nested ones with dots, and an expression snippet adds no getter of the REPL's (`getRes3`)."""
    sample_worker.eval("class Kept(val a: Int) { class Inner }")
    sample_worker.eval(
        "val kept = Kept(2)\nfun keep(k: Kept): List<Kept.Inner> = listOf()\nval pick: (Kept) -> Int = { it.a }"
    )
    assert sample_worker.succeeded("kept.a + 1").value_type == "kotlin.Int"
    assert sample_worker.succeeded("Kept.Inner()").value_type == "Kept.Inner"
    signatures = {d.name: d.signature for d in sample_worker.describe().declarations}
    assert signatures["kept"] == "val kept: Kept"
    assert signatures["keep"] == "fun keep(Kept): kotlin.collections.List<Kept.Inner>"
    assert signatures["pick"] == "val pick: (Kept) -> kotlin.Int"
    assert not [name for name in signatures if name.startswith("getRes")], signatures


def test_null_and_unit_results(sample_worker: SyncWorker) -> None:
    assert sample_worker.value("val n: String? = null\nn") == "null"
    unit = sample_worker.eval("val unused = 1")
    assert unit.result.type == "success" and unit.result.value is None


def test_compile_error_names_line_and_column_then_session_goes_on(sample_worker: SyncWorker) -> None:
    sample_worker.eval("val kept = 7")
    reply = sample_worker.eval("val a = 1\nval b = a + missingName")
    assert reply.result.type == "error" and reply.result.error_kind == "compile"
    assert "error: Unresolved reference 'missingName'. (line 2, col 13)" in reply.result.message
    assert "val b = a + missingName" in reply.result.message
    assert sample_worker.value("kept + 1") == "8"


def test_syntax_error_is_a_compile_error(sample_worker: SyncWorker) -> None:
    """The K2 REPL can compile on past a syntax error; the worker still reports it as one."""
    reply = sample_worker.eval('val s = "unterminated')
    assert isinstance(reply.result, ErrorResult), reply.result
    assert reply.result.error_kind == "compile"
    assert "Expecting '\"'" in reply.result.message
    assert sample_worker.value("1 + 1") == "2"


def test_runtime_error_has_class_message_trimmed_stack_and_cause(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval(
        'fun fail(): Nothing = throw IllegalStateException("outer", IllegalArgumentException("inner"))\nfail()'
    )
    result = reply.result
    assert isinstance(result, ErrorResult), result
    assert result.error_kind == "runtime"
    assert result.message == "java.lang.IllegalStateException: outer"
    assert (
        "at fail (snippet " in result.stack and "Caused by: java.lang.IllegalArgumentException: inner" in result.stack
    )
    assert "K2ReplEvaluator" not in result.stack and "gradlerepl.repl" not in result.stack
    assert sample_worker.value('"still alive"') == "still alive"


def test_compile_warnings_are_told_apart_from_what_running_left(sample_worker: SyncWorker) -> None:
    """The compiler's warnings come in a field of their own, labelled once, whether the snippet then fails or not."""
    failed = sample_worker.eval("val d = 1 / 0").result
    assert isinstance(failed, ErrorResult), failed
    assert failed.error_kind == "runtime" and failed.heap_warning is None
    (warning,) = failed.compile_warnings
    assert warning.startswith("warning: Division by zero. (line 1, col 9)"), warning
    assert sample_worker.eval("val unusedCast = 1 as Int").result.compile_warnings, (
        "a snippet that succeeds keeps its warnings"
    )


def test_a_result_says_what_compiling_running_and_rendering_took_in_the_jvm(sample_worker: SyncWorker) -> None:
    """The budget of a call (bench/profile.py) reads the JVM's steps from the result: each is timed around itself (a
    sleep lands in the evaluation), a step that never came reads 0, and together they fit in the worker's own time."""
    slept = sample_worker.eval('Thread.sleep(300)\n"woke"').result
    assert isinstance(slept, SuccessResult) and slept.times is not None, slept
    assert slept.times.evaluate_ms >= 300 and slept.times.compile_ms > 0 and slept.times.render_ms > 0, slept.times
    assert slept.times.compile_ms + slept.times.evaluate_ms + slept.times.render_ms <= slept.duration_ms + 1, slept
    unit = sample_worker.eval("val timedUnit = 1").result
    assert unit.times is not None and unit.times.render_ms == 0, unit
    wrong = sample_worker.eval('val timedWrong: Int = "s"').result
    assert isinstance(wrong, ErrorResult) and wrong.error_kind == "compile", wrong
    assert wrong.times is not None and wrong.times.compile_ms > 0, wrong
    assert wrong.times.evaluate_ms == 0 and wrong.times.render_ms == 0, wrong.times


def test_project_code_frames_stay_in_the_stack(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval('sample.parseShelf("not json")')
    assert isinstance(reply.result, ErrorResult), reply.result
    assert reply.result.error_kind == "runtime"
    assert "at sample.BooksKt.parseShelf(Books.kt" in reply.result.stack


def test_output_arrives_in_the_order_it_happened(sample_worker: SyncWorker) -> None:
    """println, display, println: three frames, in that order."""
    reply = sample_worker.eval('println("one"); display(2); println("three")')
    kinds = [(f.event, f.data.strip()) for f in reply.frames]
    assert kinds == [("stdout", "one"), ("display", "2"), ("stdout", "three")]


def test_output_from_threads_the_snippet_starts_is_captured(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval('val t = Thread { System.err.println("from thread") }\nt.start(); t.join()')
    assert [(f.event, f.data) for f in reply.frames] == [("stderr", "from thread\n")]


def test_display_api_kinds(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval('markdown("# T"); html("<i>x</i>"); display(listOf(1, 2))')
    displays = [f for f in reply.frames if isinstance(f, DisplayFrame)]
    assert len(displays) == len(reply.frames), reply.frames
    assert [(f.kind, f.mime, f.data) for f in displays] == [
        ("markdown", "text/markdown", "# T"),
        ("html", "text/html", "<i>x</i>"),
        ("text", "text/plain", "[1, 2]"),
    ]


def test_buffered_image_arrives_as_png_of_the_same_size(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval(
        "import java.awt.image.BufferedImage\nimport java.awt.Color\n"
        "val img = BufferedImage(64, 48, BufferedImage.TYPE_INT_ARGB)\n"
        "img.createGraphics().apply { color = Color.RED; fillRect(0, 0, 32, 24); dispose() }\nimg"
    )
    assert isinstance(reply.result, SuccessResult), reply.result
    value = reply.result.value
    assert value is not None and value.kind == "image" and value.mime == "image/png"
    picture = Image.open(io.BytesIO(base64.b64decode(value.data)))
    assert picture.format == "PNG" and picture.size == (64, 48)
    corner = picture.getpixel((0, 0))
    assert isinstance(corner, tuple) and corner[:3] == (255, 0, 0), corner


def test_png_bytes_are_recognised_as_an_image(sample_worker: SyncWorker) -> None:
    reply = sample_worker.eval(
        "val out = java.io.ByteArrayOutputStream()\n"
        'javax.imageio.ImageIO.write(java.awt.image.BufferedImage(3, 5, 1), "png", out)\nout.toByteArray()'
    )
    assert isinstance(reply.result, SuccessResult), reply.result
    assert reply.result.value is not None and reply.result.value.kind == "image"
    assert Image.open(io.BytesIO(base64.b64decode(reply.result.value.data))).size == (3, 5)


def test_serializable_classes_of_the_project_round_trip(sample_worker: SyncWorker) -> None:
    """sample-project's @Serializable classes, compiled by the build's plugin, encode and decode."""
    value = sample_worker.value(
        "import kotlinx.serialization.json.Json\nimport sample.*\n"
        "val encoded = Json.encodeToString(Shelf.serializer(), classics)\n"
        "Json.decodeFromString(Shelf.serializer(), encoded) == classics"
    )
    assert value == "true"


def test_serializable_class_declared_in_a_snippet(sample_worker: SyncWorker) -> None:
    """The serialization compiler plugin runs on snippet code too (this crashes a K1 REPL)."""
    value = sample_worker.value(
        "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
        '@Serializable data class Point(val x: Int, val label: String = "p")\n'
        'val text = Json.encodeToString(Point(3))\ntext + " " + Json.decodeFromString<Point>(text)'
    )
    assert value == '{"x":3} Point(x=3, label=p)'


def test_a_snippets_serializable_class_has_its_serializer_through_the_class(sample_worker: SyncWorker) -> None:
    """`Q.serializer()` on a snippet's @Serializable class, written fully qualified or imported (the K2 REPL never made
    the plugin's generated companion the class's companion: an unresolved reference). A check and completion see it too."""
    assert_serializers_through_the_class(sample_worker)
    assert (
        sample_worker.check("QualifiedNote.serializer()").value_type
        == "kotlinx.serialization.KSerializer<QualifiedNote>"
    )
    assert "serializer" in [item.text for item in sample_worker.complete("ImportedNote.ser").items]


def test_a_snippets_sealed_types_know_their_inheritors(sample_worker: SyncWorker) -> None:
    """Exhaustive `when`, `sealedSubclasses` and kotlinx.serialization's polymorphism over a sealed class or interface
    declared in a snippet, as in a source file (ARCHITECTURE.md, "Phases a snippet's classes miss")."""
    assert_sealed_types_know_their_inheritors(sample_worker)


def test_snippets_see_the_projects_library_versions(sample_worker: SyncWorker) -> None:
    """sample-project uses kotlinx-coroutines 1.10.2; the compiler carries its own older copy."""
    location = sample_worker.value("kotlinx.coroutines.Job::class.java.protectionDomain.codeSource.location.toString()")
    assert "kotlinx-coroutines-core-jvm-1.10.2.jar" in location
    hidden = sample_worker.eval('Class.forName("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler")')
    assert isinstance(hidden.result, ErrorResult), hidden.result
    assert hidden.result.error_kind == "runtime" and "ClassNotFoundException" in hidden.result.message


def test_compilers_libraries_are_invisible_at_compile_time(sample_worker: SyncWorker) -> None:
    """sample-project has no kotlin-reflect: a snippet can't compile against the compiler's copy either."""
    reflect = sample_worker.eval(
        "import kotlin.reflect.full.memberProperties\nsample.Book::class.memberProperties.size"
    )
    assert isinstance(reflect.result, ErrorResult), reflect.result
    assert reflect.result.error_kind == "compile" and "memberProperties" in reflect.result.message
    compiler = sample_worker.eval("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler::class.java")
    assert isinstance(compiler.result, ErrorResult), compiler.result
    assert compiler.result.error_kind == "compile"


def test_no_jar_of_the_repl_host_shadows_the_project_at_runtime(
    sample_env: ReplEnvironment, sample_worker: SyncWorker
) -> None:
    """Every jar the REPL host runs with, probed by one class of each through the context loader: only the Kotlin
    runtime snippets share with the evaluator is visible; everything else comes from the project or not at all."""
    shared = (
        "kotlin-stdlib-",
        "kotlin-script-runtime-",
        "kotlin-scripting-common-",
        "kotlin-scripting-jvm-",
        "kotlin-reflect-",
    )
    probes = {Path(jar).name: _first_class(Path(jar)) for jar in sample_env.repl_host_classpath}
    names = ", ".join(f'"{name}"' for name in probes.values() if name)
    code = (
        f"listOf({names}).map {{ name ->\n"
        '    try { Class.forName(name, false, Thread.currentThread().contextClassLoader).protectionDomain.codeSource?.location?.path ?: "platform" }\n'
        '    catch (e: ClassNotFoundException) { "hidden" }\n'
        '}.joinToString("\\n")'
    )
    seen = dict(
        zip([jar for jar, name in probes.items() if name], sample_worker.value(code).splitlines(), strict=False)
    )
    project_jars = {Path(j).name for j in sample_env.classpath}
    for jar, where in seen.items():
        if jar.startswith(shared):
            assert where.endswith(jar), (jar, where)
        else:
            assert where == "hidden" or Path(where).name in project_jars, (jar, where)
    assert any(where == "hidden" for where in seen.values())


def _first_class(jar: Path) -> str | None:
    """A top-level class of jar's own, by name (none for a jar of resources only)."""
    with zipfile.ZipFile(jar) as archive:
        for entry in archive.namelist():
            if entry.endswith(".class") and "$" not in entry and not entry.startswith(("META-INF/", "module-info")):
                return entry.removesuffix(".class").replace("/", ".")
    return None


def test_stdin_reads_nothing_and_cannot_steal_requests(sample_worker: SyncWorker) -> None:
    assert sample_worker.value("System.`in`.read()") == "-1"
    assert sample_worker.value('"next request intact"') == "next request intact"


def test_text_that_looks_like_a_frame_stays_text(sample_worker: SyncWorker) -> None:
    fake = '{"event":"result","type":"success"}'
    reply = sample_worker.eval(f'println("""{fake}""")\n41 + 1')
    assert isinstance(reply.result, SuccessResult), reply.result
    assert reply.result.value is not None and reply.result.value.data == "42"
    assert [f.data for f in reply.frames] == [fake + "\n"]


def test_long_output_is_truncated_and_says_how_much(sample_env: ReplEnvironment) -> None:
    """A per-snippet total, printed text split into frames within the frame limit; the result counts every byte cut.
    First, on this fresh worker: a user's first snippet that fails to compile leaves the session usable (the K2 REPL
    would put the state it shares with later snippets into the first one it compiles, were it not given its own)."""
    from gradle_repl.frames import WorkerOptions

    worker = SyncWorker(sample_env, WorkerOptions(heap_mb=512, output_limit_bytes=50_000, frame_limit_bytes=10_000))
    try:
        assert worker.failed('val x: Int = "s"').error_kind == "compile"
        assert worker.value('println("ok"); 5') == "5"
        reply = worker.eval('print("x".repeat(30_000))\nrepeat(100) { print("y".repeat(1000)) }\n"done"')
        assert isinstance(reply.result, SuccessResult), reply.result
        assert reply.result.value is not None and reply.result.value.data == "done"
        # 130,000 bytes printed: the first 50,000 kept by the total cap, in frames of at most 10,000; the rest counted.
        printed = "".join(f.data for f in reply.frames)
        assert printed == "x" * 30_000 + "y" * 20_000 and all(len(f.data) <= 10_000 for f in reply.frames)
        assert reply.result.truncated_bytes == 80_000
        # An image over the frame limit is downscaled until it fits; one that can't fit is dropped, saying so.
        noisy = worker.succeeded(
            "val rnd = java.util.Random(1)\n"
            "val img = java.awt.image.BufferedImage(400, 400, java.awt.image.BufferedImage.TYPE_INT_RGB)\n"
            "for (x in 0 until 400) for (y in 0 until 400) img.setRGB(x, y, rnd.nextInt())\nimg"
        ).value
        assert noisy is not None and noisy.kind == "image" and int(noisy.meta["downscaled_from_bytes"]) > 10_000
        assert Image.open(io.BytesIO(base64.b64decode(noisy.data))).size[0] < 400
        garbage = worker.eval(
            "ByteArray(20_000) { if (it < 4) byteArrayOf(-119, 80, 78, 71)[it] else it.toByte() }"
        ).result
        assert isinstance(garbage, SuccessResult), garbage
        assert garbage.value is not None and garbage.value.data.startswith("[image dropped: 20000 bytes of image/png")
        assert garbage.truncated_bytes == 20_000
    finally:
        worker.close()


def test_a_nearly_full_heap_is_a_warning_once_per_step_and_passes_when_freed(sample_env: ReplEnvironment) -> None:
    """Live data after GC past 85% of the heap warns (with the way out); garbage alone never does."""
    from gradle_repl.frames import WorkerOptions

    worker = SyncWorker(sample_env, WorkerOptions(heap_mb=256))
    try:
        # Straight to 75% live in one snippet (a full collection per 4 MB step from the start took ~20 s): below
        # the mark nothing is said.
        filled = worker.eval(
            "val hog = ArrayList<LongArray>()\n"
            "val rt = Runtime.getRuntime(); System.gc()\n"
            "while (rt.totalMemory() - rt.freeMemory() < rt.maxMemory() * 3 / 4) hog.add(LongArray(512 * 1024))\n"
            "hog.size"
        )
        assert filled.result.type == "success", filled.result.message
        assert filled.result.heap_warning is None, filled.result.heap_warning
        warned = None
        for _ in range(12):
            # 4 MB more live data each time; the GC makes "live after collection" current.
            reply = worker.eval("hog.add(LongArray(512 * 1024)); System.gc(); hog.size")
            assert reply.result.type == "success", reply.result.message
            warned = reply.result.heap_warning
            if warned:
                break
        assert warned is not None and warned.startswith("memory: ") and "full after garbage collection" in warned, (
            warned
        )
        assert "--heap-mb" in warned, warned
        assert worker.eval("System.gc(); hog.size").result.heap_warning is None, "the same level is not warned twice"
        assert worker.eval("hog.clear(); System.gc(); List(100_000) { it }.size").result.heap_warning is None
    finally:
        worker.close()


def test_the_jvm_runs_c1_only_unless_full_jit_is_asked_for(sample_worker: SyncWorker) -> None:
    """C1 only, with the code cache a tiered JVM gets, not C1-only's 48 MB (which the compiler's code overflows)."""
    arguments = sample_worker.value(
        'java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments.joinToString(" ")'
    )
    assert "-XX:TieredStopAtLevel=1" in arguments and "-XX:+UseSerialGC" in arguments
    assert f"-XX:ReservedCodeCacheSize={DEFAULTS.code_cache_mb}m" in arguments, arguments
    reserved = sample_worker.value(
        'java.lang.management.ManagementFactory.getMemoryPoolMXBeans().filter { it.name.startsWith("CodeHeap") || it.name == "CodeCache" }'
        ".sumOf { it.usage.max } / (1024 * 1024)"
    )
    assert int(reserved) >= DEFAULTS.code_cache_mb - 8, reserved


def test_the_heap_starts_at_the_settings_initial_size(sample_worker: SyncWorker) -> None:
    """The initial heap is settings' initial_heap_mb, not the JVM's 1/64 of RAM (Serial never shrinks below it)."""
    initial = sample_worker.value(
        "java.lang.management.ManagementFactory.getMemoryMXBean().heapMemoryUsage.init / (1024 * 1024)"
    )
    assert DEFAULTS.initial_heap_mb <= int(initial) <= DEFAULTS.initial_heap_mb + 8, initial


def test_frameworks_find_the_projects_classes_and_services_through_the_context_class_loader(
    sample_worker: SyncWorker,
) -> None:
    """ServiceLoader, Class.forName on the context loader, threads a snippet starts, snippet classes declared
    earlier: all see what the project's own code sees. A loader a snippet sets stays, like any state."""
    assert (
        sample_worker.value("java.util.ServiceLoader.load(sample.BookFormat::class.java).map { it.name }")
        == "[citation]"
    )
    assert sample_worker.value("sample.availableFormats()") == "[citation]"
    inherited = (
        'var seen = ""\n'
        'val t = Thread { seen = Thread.currentThread().contextClassLoader.loadClass("sample.Book").simpleName }\n'
        "t.start(); t.join(); seen"
    )
    assert sample_worker.value(inherited) == "Book"
    sample_worker.eval("class DeclaredEarlier")
    assert (
        sample_worker.value(
            "Thread.currentThread().contextClassLoader.loadClass(DeclaredEarlier::class.java.name).simpleName"
        )
        == "DeclaredEarlier"
    )
    sample_worker.eval(
        "val sessionLoader = Thread.currentThread().contextClassLoader\n"
        "Thread.currentThread().contextClassLoader = java.net.URLClassLoader(arrayOf(), null)"
    )
    try:
        assert sample_worker.value("Thread.currentThread().contextClassLoader.parent == null") == "true"
    finally:
        sample_worker.eval("Thread.currentThread().contextClassLoader = sessionLoader")
    assert sample_worker.value("sample.availableFormats()") == "[citation]"


def test_a_declaration_whose_snippet_failed_is_named_when_used_not_a_null_pointer(sample_worker: SyncWorker) -> None:
    assert sample_worker.failed('val failedVal: String = error("boom")').error_kind == "runtime"
    used = sample_worker.eval("failedVal.length").result
    assert isinstance(used, ErrorResult), used
    assert used.type == "error" and "'failedVal' was not initialised" in used.message, used.message
    assert "NullPointerException" not in used.message
    assert sample_worker.failed("fun failedFun(a: Int) { return a * 2 }").error_kind == "compile"
    called = sample_worker.eval("failedFun(1)").result
    assert isinstance(called, ErrorResult), called
    assert called.type == "error" and "NullPointerException" not in called.message, called.message
    assert "'failedFun'" in called.message or "Unresolved reference 'failedFun'" in called.message, called.message
    passed = sample_worker.eval("fun failedValLength(s: String) = s.length\nfailedValLength(failedVal)").result
    assert isinstance(passed, ErrorResult), passed
    assert passed.message.startswith("'failedVal' was not initialised"), passed.message
    assert sample_worker.value('val failedVal = "again"\nfailedVal.length') == "5"


class OtherBuild(NamedTuple):
    repository: FileRepository
    worker: SyncWorker


@pytest.fixture(scope="module")
def other_build(sample_env: ReplEnvironment, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OtherBuild]:
    """A session on sample-project as another build would give it: its only repository a file repository holding
    the only copy of an artifact, and no compiler plugin applied. One JVM for the two tests that read it."""
    with file_repository(
        tmp_path_factory.mktemp("other-build"),
        sample_env.java_home,
        package="onlyhere",
        greeting="from the build's repository",
    ) as repo:
        env = sample_env.model_copy(
            update={"repositories": [repo.url], "compiler_plugin_classpath": [], "compiler_plugin_options": []}
        )
        with running_worker(env) as worker:
            yield OtherBuild(repo, worker)


def test_depends_on_finds_an_artifact_in_the_builds_own_repository(other_build: OtherBuild) -> None:
    """The build's repositories (here a file repository holding the only copy of an artifact) are searched
    without a @file:Repository line, as the build's own dependencies came from them."""
    # The build's only repository: Maven Central is still searched (for the project's own artifacts here).
    repo, worker = other_build
    assert (
        worker.value(f'@file:DependsOn("{repo.coordinate}")\nonlyhere.Greeting.hello()')
        == "from the build's repository"
    )


def test_the_worker_forces_no_full_collection_of_its_own(sample_worker: SyncWorker) -> None:
    """Only the JVM decides when to collect: JPype's hook would run System.gc() (a full collection,
    0.2–0.7 s on a grown heap) each time the process's native memory grew by 10 MB, i.e. every dozen or
    so declarations. Counted by cause, from the JVM's own GC notifications."""
    sample_worker.eval(
        "import com.sun.management.GarbageCollectionNotificationInfo as Gc\n"
        "val forcedCollections = java.util.concurrent.atomic.AtomicInteger()\n"
        "for (collector in java.lang.management.ManagementFactory.getGarbageCollectorMXBeans())\n"
        "    (collector as javax.management.NotificationEmitter).addNotificationListener({ n, _ ->\n"
        "        if (n.type == Gc.GARBAGE_COLLECTION_NOTIFICATION &&\n"
        '            Gc.from(n.userData as javax.management.openmbean.CompositeData).gcCause == "System.gc()")\n'
        "            forcedCollections.incrementAndGet()\n"
        "    }, null, null)"
    )
    for i in range(60):
        declared = "\n".join(
            [f"data class Row{i}(val id: Int) {{"] + [f"    fun f{k}() = id * {k}" for k in range(20)] + ["}"]
        )
        assert sample_worker.eval(f"{declared}\nRow{i}(2).f3()").result.type == "success"
    assert sample_worker.value("forcedCollections.get()") == "0"


def test_a_snippets_serializable_class_without_the_plugin_says_why(other_build: OtherBuild) -> None:
    """A session whose compiler gets no serialization plugin (here: as if the build applied none): the class
    compiles, and the error a use of its serializer meets ends with why there is none."""
    worker = other_build.worker
    assert worker.eval("@kotlinx.serialization.Serializable data class Q(val y: String)").result.type == "success"
    for use in ("Q.serializer()", 'kotlinx.serialization.json.Json.encodeToString(Q("z"))'):
        failed = worker.eval(use).result
        assert isinstance(failed, ErrorResult), failed
        hint = failed.message.splitlines()[-1]
        assert hint.startswith("hint: the kotlinx.serialization compiler plugin is not applied"), failed.message
        assert "the build does not apply it" in hint, hint
