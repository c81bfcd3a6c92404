"""Why @file:DependsOn is unavailable is said whole: the artifacts Maven could not resolve, never half a coordinate."""

from __future__ import annotations

from gradle_repl.project.dependency_support import REASON_CHARS, why_not_fetched

ASKED = (
    "Maven could not resolve org.apache.maven.resolver:maven-resolver-api:1.9.22, org.apache.maven.resolver:maven-resolver-spi:1.9.22, "
    "org.apache.maven.resolver:maven-resolver-util:1.9.22, org.slf4j:slf4j-nop:1.7.36, org.jetbrains.kotlin:kotlin-scripting-dependencies:2.2.21, "
    "org.jetbrains.kotlin:kotlin-scripting-dependencies-maven:2.2.21:"
)
# Maven 3.8.7's words, as this machine's mirror answered for Kotlin 2.2.21 (colour codes and all).
NOT_RESOLVED = ASKED + (
    "\n\x1b[0m\x1b[0m[ERROR] Failed to execute goal on project resolver: Could not resolve dependencies for project "
    "gradle-repl.toolchain:resolver:pom:1: The following artifacts could not be resolved: "
    "org.jetbrains.kotlin:kotlin-scripting-dependencies:jar:2.2.21, org.jetbrains.kotlin:kotlin-scripting-dependencies-maven:jar:2.2.21: "
    "org.jetbrains.kotlin:kotlin-scripting-dependencies:jar:2.2.21 was not found in https://repo.maven.apache.org/maven2 during a "
    "previous attempt. This failure was cached in the local repository -> [Help 1]\n[ERROR] \n"
    "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/DependencyResolutionException"
)
NOT_FOUND = (
    "Maven could not resolve gradle-repl.test:no-such-artifact:1.0:\n[ERROR] Failed to execute goal on project x: Could not resolve "
    "dependencies for project gradle-repl.toolchain:x:pom:1: Could not find artifact gradle-repl.test:no-such-artifact:jar:1.0 in "
    "central (https://repo.maven.apache.org/maven2) -> [Help 1]"
)


def test_the_missing_artifacts_are_named_whole() -> None:
    """Of everything asked for, the reason names what Maven could not resolve, each coordinate whole."""
    assert why_not_fetched(NOT_RESOLVED) == (
        "Maven could not resolve org.jetbrains.kotlin:kotlin-scripting-dependencies:jar:2.2.21, "
        "org.jetbrains.kotlin:kotlin-scripting-dependencies-maven:jar:2.2.21"
    )
    assert why_not_fetched(NOT_FOUND) == "Maven could not resolve gradle-repl.test:no-such-artifact:jar:1.0"


def test_another_reason_is_its_first_line_cut_only_with_a_note() -> None:
    """Without an artifact to name, the first line stands, whole when short, else cut saying by how much."""
    assert (
        why_not_fetched("Maven (mvn) is not on PATH; install Maven 3.6+\nmore")
        == "Maven (mvn) is not on PATH; install Maven 3.6+"
    )
    long = "x" * (REASON_CHARS + 42)
    assert why_not_fetched(long) == "x" * REASON_CHARS + "… (42 more characters)"
    assert why_not_fetched("y" * REASON_CHARS) == "y" * REASON_CHARS, "a first line within the limit is never cut"
