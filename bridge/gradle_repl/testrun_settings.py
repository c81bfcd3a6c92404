"""What the build tool's test configuration sets for its test JVM, as a session of the test source set applies it.

Maven's surefire (`systemPropertyVariables`, `environmentVariables`, `includes`/`excludes`, `groups`/`excludedGroups`,
`argLine`) and Gradle's `test` task (`systemProperty`, `environment`, `useJUnitPlatform { includeTags/excludeTags }`,
`filter`, `jvmArgs`) both come down to this model; the project side fills it, the worker's test runner obeys it.
JVM flags can't be given to a running JVM: they start the test session's JVM with them, and what can't apply is said
in `not_applied`, never dropped silently.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["TestRunSettings", "jvm_options"]

# The `java` launcher's options that take their value as the next word; a JVM started through JNI (the session's)
# takes each option as one string, `--add-opens=java.base/java.lang=ALL-UNNAMED`.
_SEPARATE_VALUE = frozenset(
    {
        "--add-opens",
        "--add-exports",
        "--add-reads",
        "--add-modules",
        "--patch-module",
        "--limit-modules",
        "--enable-native-access",
    }
)


class TestRunSettings(BaseModel):
    """The build's settings for running its tests; empty fields mean the build sets nothing."""

    __test__ = False  # a model, not a pytest test class, though its name starts with "Test"

    system_properties: dict[str, str] = Field(default_factory=dict, description="set before the run, restored after it")
    environment: dict[str, str] = Field(default_factory=dict, description="the test session's process environment")
    includes: list[str] = Field(
        default_factory=list,
        description="class-name patterns a run of every test keeps (surefire's includes, Gradle's filter)",
    )
    excludes: list[str] = Field(default_factory=list, description="class-name patterns a run of every test leaves out")
    include_tags: list[str] = Field(
        default_factory=list, description="JUnit Platform tag expressions (surefire's groups)"
    )
    exclude_tags: list[str] = Field(default_factory=list, description="JUnit Platform tag expressions (excludedGroups)")
    jvm_args: list[str] = Field(
        default_factory=list, description="the test JVM's flags: the test session's JVM starts with them"
    )
    not_applied: list[str] = Field(
        default_factory=list, description="settings the build has that a session can't apply, each as one sentence"
    )


def jvm_options(words: list[str]) -> list[str]:
    """A build's JVM flags (argLine's words, Gradle's jvmArgs) as a JVM started in process takes them: an option the
    `java` launcher reads with its value in the next word is joined to it with `=`."""
    options: list[str] = []
    pending: str | None = None
    for word in words:
        if pending is not None:
            options.append(f"{pending}={word}")
            pending = None
        elif word in _SEPARATE_VALUE:
            pending = word
        else:
            options.append(word)
    return options + ([pending] if pending is not None else [])
