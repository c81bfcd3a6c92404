"""The Kotlin versions the suite builds projects with besides the pinned one, each named once: the tests that rewrite a
project's kotlin.version take them from here, and prefetch.py fetches each one's compiler at a run's start."""

from __future__ import annotations

# A K2 REPL older than the pinned one.
OLDER_KOTLIN = "2.2.21"

# Kotlin without a usable K2 REPL, each with the serialization and coroutines versions of its time.
KOTLIN_WITHOUT_K2_REPL = (("1.9.24", "1.6.3", "1.8.1"), ("2.1.20", "1.8.1", "1.10.2"))

# A REPL that opens a snippet's class for all-open's presets but leaves its members final.
KOTLIN_WITH_FINAL_SNIPPET_MEMBERS = "2.3.0"

SUITE_KOTLIN_VERSIONS = (
    OLDER_KOTLIN,
    *(kotlin for kotlin, _, _ in KOTLIN_WITHOUT_K2_REPL),
    KOTLIN_WITH_FINAL_SNIPPET_MEMBERS,
)
