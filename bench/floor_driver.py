"""The floor of a warm call: a session booted as a worker boots it, in this process, and snippets compiled, run and
rendered by the facade with nothing else around them (bench/profile.py).

    .venv/bin/python bench/floor_driver.py    # GRADLE_REPL_CACHE_DIR as the bench's

The session is worker/boot.py's own (same JVM options, facade, class-data archive, warm-up), on sample-project
resolved with Maven from the cache; no pipes, no server, no output forwarding, probes, declarations or result
building. Its first answer is `{"pid": …}` once the session is up; then each stdin line is a snippet's code as a JSON
string, answered `{"wall": …, "compile": …, "evaluate": …, "render": …}` in seconds: the wall from starting the
facade's snippet to its value's text read back here, and the facade's own three steps (SnippetOutcome).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from gradle_repl.environment import SessionSpec
from gradle_repl.frames import StartRequest
from gradle_repl.host.limits import worker_options
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.worker.boot import boot
from gradle_repl.worker.results.safety import jstr

SAMPLE = Path(__file__).resolve().parents[1] / "sample-project"


def main() -> None:
    # The answers get a descriptor of their own; whatever else writes to stdout (the JVM) goes to stderr.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    env = resolve_environment(SAMPLE, build_tool="maven").environment
    session, _, _ = boot(StartRequest(spec=SessionSpec(environment=env), **worker_options().model_dump()))
    snippets = session._snippets  # the session's SnippetCounter: the facade's driver, under the REPL's numbering
    answers.write(json.dumps({"pid": os.getpid()}) + "\n")
    for line in sys.stdin:
        began = time.perf_counter()
        _, running = snippets.start(json.loads(line))
        running.join(0)  # Thread.join(0): until done
        outcome = running.getOutcome()
        rendered = outcome.rendered if outcome is not None else None
        if outcome is None or rendered is None:
            raise SystemExit(f"the snippet did not come to a value: {line.strip()}")
        jstr(rendered.text)
        wall = time.perf_counter() - began
        nanos = (int(outcome.compileNanos), int(outcome.evaluateNanos), int(outcome.renderNanos))
        answers.write(
            json.dumps(
                {"wall": wall, **dict(zip(("compile", "evaluate", "render"), [n / 1e9 for n in nanos], strict=True))}
            )
            + "\n"
        )
    answers.close()
    os._exit(0)  # the JVM may hold threads: leave without waiting for them


if __name__ == "__main__":
    main()
