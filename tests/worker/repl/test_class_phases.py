"""A session whose Kotlin the class-phases add-on doesn't fit starts without it and says how around it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.frames import ErrorResult
from gradle_repl.worker.artifacts.facade_jars import class_phases_addon_path
from support.paths import CONTENT_ADDRESSED_CACHES
from support.workers import running_worker

pytestmark = pytest.mark.jvm


def test_without_the_add_on_an_unresolved_serializer_says_to_go_through_companion(
    sample_env: ReplEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The add-on's compile failed on this Kotlin (remembered beside its jar, as for a Kotlin whose FIR it doesn't
    fit): the session runs, `Q.serializer()` fails with a hint naming why and the way around, and that way works."""
    shared = Path(os.environ["GRADLE_REPL_CACHE_DIR"])
    cache = tmp_path / "cache"
    cache.mkdir()
    # The content-addressed caches as the run has them (no facade compiled again), but a facade dir of this test's own.
    for name in CONTENT_ADDRESSED_CACHES:
        if name != "facade":
            (cache / name).symlink_to((shared / name).resolve(), target_is_directory=True)
    (cache / "facade").mkdir()
    for jar in (shared / "facade").glob("*.jar"):
        (cache / "facade" / jar.name).symlink_to(jar.resolve())
    monkeypatch.setenv("GRADLE_REPL_CACHE_DIR", str(cache))
    addon = class_phases_addon_path(sample_env.kotlin_version)
    addon.unlink(missing_ok=True)
    addon.with_name(f"{addon.name}.failed").write_text(
        "could not compile the jvm-worker facade's class-phases add-on with Kotlin x:\n"
        "ClassPhases.kt:1:1: error: unresolved reference 'FirStatusTransformerExtension'."
    )
    with running_worker(sample_env) as worker:
        assert worker.eval("@kotlinx.serialization.Serializable data class Q(val a: Int)").result.type == "success"
        failed = worker.eval("Q.serializer()").result
        assert isinstance(failed, ErrorResult), failed
        assert failed.type == "error" and "Unresolved reference 'serializer'" in failed.message, failed.message
        hint = failed.message.splitlines()[-1]
        assert hint.startswith("hint: in this session a companion object that a compiler plugin generates"), hint
        assert (
            "unresolved reference 'FirStatusTransformerExtension'" in hint and "`Q.Companion.serializer()`" in hint
        ), hint
        assert worker.value("Q.Companion.serializer().descriptor.getElementName(0)") == "a"
        sealed = (
            "@kotlinx.serialization.Serializable sealed class Sh\n@kotlinx.serialization.Serializable class Sq : Sh()"
        )
        assert worker.eval(sealed).result.type == "success"
        through = worker.eval("kotlinx.serialization.json.Json.encodeToString<Sh>(Sq())").result
        assert isinstance(through, ErrorResult) and through.error_kind == "runtime", through
        hint = through.message.splitlines()[-1]
        assert hint.startswith("hint: in this session a sealed class or interface declared in a snippet knows none"), (
            hint
        )
        assert "polymorphic(Shape::class)" in hint, hint
