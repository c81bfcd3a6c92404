"""What the MCP server tells an agent at `initialize` (its `instructions`): when to reach for which tool and what an
answer means, short enough that a client can put it in every prompt. Tool names stand in backticks, each checked
against the published tools (tests/front/test_agent_guide.py); the longer guide for clients that read Agent Skills is
skills/gradle-repl/SKILL.md, and the reference is docs/tools.md."""

from __future__ import annotations

__all__ = ["INSTRUCTIONS"]

INSTRUCTIONS = """\
gradle-repl runs Kotlin inside a Gradle or Maven JVM project's own world: its compiled classes, dependencies, JDK and
compiler plugins (kotlinx-serialization, all-open, ...). State (vals, funs, classes, imports) lasts per sessionId, like
a notebook. Use it to try an API, inspect data, check a serializer, reproduce a bug or verify an edit, instead of
writing a throwaway test or main.
- `run_kotlin_snippet` (projectRoot absolute): runs code; the last expression's value and type come back. Sources
  edited since the last call are built first; a notice says whether the session kept its state (`updated`) or
  restarted (`restarted`, naming what was lost).
- `check_kotlin_snippet`: compiles only: errors with line and column, the type of the last expression; nothing runs.
- `complete_kotlin_snippet`: what fits at a cursor, with the import a candidate needs.
- `describe_kotlin_session`: what a session holds (options, imports, names and values), to pick up where it was.
- `run_project_tests` (tests: `shop.CartTest`, `shop.CartTest.oneItem`, `shop.*`; failedOnly after an edit: the tests known to fail): JUnit in
  the warm test session (sourceSet "jvmTest" for KMP); counts and failures only. Snippets with the same sourceSet
  and sessionId="tests" share it.
- Why, not just that: `probes` on `run_kotlin_snippet` and `run_project_tests` ([{at: "Cart.kt:18", when, capture}])
  record a line's locals, `this` (private state too) and expressions while the code runs, no edit, no thread
  stopped; `explainFailures=true` gives each failed test's frames what they held. Prefer them to editing in printlns.
- `list_running_jvms` then `attach_kotlin_session`: snippets run inside a running app (Spring beans: bean<T>()); there
  `add_kotlin_probe` at "pkg.Class:LINE" then `read_kotlin_probe_hits` shows what a request carried through a line.
- `reset_kotlin_session` with replay=true: a fresh JVM that runs the session's successful snippets again.
An error result's kind says what to do: `compile` (fix the code), `runtime` (the stack names snippet lines),
`timeout` or `cancelled` (stateLost says whether the session kept its state), `exited` or `out_of_memory` (the next
call starts a fresh session), `probe` (a probe could not be set; nothing ran), `request` (the call itself was wrong:
the message says how)."""
