"""What a `java` command line says of the JVM's Kotlin (project/jvm_kotlin.py), read without attaching: a class path's
kotlin-stdlib and its version, a fat jar's nested one, Kotlin shaded into a jar, none, or can't tell."""

from __future__ import annotations

import zipfile
from pathlib import Path

from gradle_repl.project.jvm_kotlin import KotlinSeen, kotlin_of


def _jar(path: Path, *names: str, manifest: str = "Manifest-Version: 1.0\n") -> Path:
    with zipfile.ZipFile(path, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", manifest)
        for name in names:
            jar.writestr(name, b"")
    return path


def test_a_class_path_with_kotlin_stdlib_names_its_version(tmp_path: Path) -> None:
    """`-cp classes:lib/kotlin-stdlib-2.2.21.jar`, relative to the working directory: Kotlin 2.2.21."""
    seen = kotlin_of(["java", "-Xmx1g", "-cp", "classes:lib/kotlin-stdlib-2.2.21.jar", "app.MainKt"], str(tmp_path))
    assert seen == KotlinSeen(True, "2.2.21")


def test_a_java_class_path_has_no_kotlin(tmp_path: Path) -> None:
    """A plain Java app's classes directory, named by --class-path= or CLASSPATH: no Kotlin."""
    (tmp_path / "classes").mkdir()
    assert kotlin_of(["java", f"--class-path={tmp_path / 'classes'}", "counter.Main"], None) == KotlinSeen(False, None)
    assert kotlin_of(["java", "counter.Main"], str(tmp_path), "classes") == KotlinSeen(False, None)


def test_a_fat_jars_nested_libraries_and_shaded_classes_count(tmp_path: Path) -> None:
    """`java -jar`: a Spring Boot jar's BOOT-INF/lib kotlin-stdlib names its version; Kotlin shaded in says Kotlin, no
    version; a Java fat jar has none; its manifest's Class-Path is followed."""
    boot = _jar(tmp_path / "boot.jar", "BOOT-INF/classes/", "BOOT-INF/lib/kotlin-stdlib-2.2.21.jar")
    assert kotlin_of(["java", "-jar", str(boot)], None) == KotlinSeen(True, "2.2.21")
    _jar(tmp_path / "shaded.jar", "kotlin/Unit.class", "app/Main.class")
    assert kotlin_of(["java", "-jar", "shaded.jar"], str(tmp_path)) == KotlinSeen(True, None)
    plain = _jar(tmp_path / "plain.jar", "BOOT-INF/lib/spring-core-7.0.0.jar")
    assert kotlin_of(["java", "-jar", str(plain)], None) == KotlinSeen(False, None)
    listed = _jar(
        tmp_path / "listed.jar",
        "app/Main.class",
        manifest="Manifest-Version: 1.0\nClass-Path: lib/kotlin-stdlib-\n 2.3.21.jar\n",
    )
    assert kotlin_of(["java", "-jar", str(listed)], None) == KotlinSeen(True, "2.3.21")


def test_what_the_command_line_does_not_show_is_unknown(tmp_path: Path) -> None:
    """An argument file, a relative class path without a working directory, a jar that can't be read: unknown."""
    assert kotlin_of(["java", "@app.args", "app.Main"], str(tmp_path)) == KotlinSeen(None, None)
    assert kotlin_of(["java", "-cp", "lib/a.jar", "app.Main"], None) == KotlinSeen(None, None)
    assert kotlin_of(["java", "-jar", str(tmp_path / "gone.jar")], None) == KotlinSeen(None, None)
