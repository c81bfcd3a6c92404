"""A test run as people and agents read it: each failure (test, message, the project's frames, what it printed), then
one summary line (`5 passed, 1 failed, 1 skipped in 0.4 s`); and the run fitted to a size limit, saying what was cut.
The MCP tool, the CLI's `test` and the terminal's `:test` all print it."""

from __future__ import annotations

from gradle_repl.frames import ErrorResult, TestFailureDetail, TestRunResult
from gradle_repl.front.probe_report import probe_report
from gradle_repl.host.handle import TestReply

__all__ = ["RESULT_LIMIT_CHARS", "fit_test_run", "summary_line", "run_report", "nothing_failed", "reply_text"]

# What one test run's failures may take in a reply: enough for dozens of failures with their stacks, far less than the
# megabytes a build's test report holds (an agent reads all of it).
RESULT_LIMIT_CHARS = 40_000
# One failure's printed output at most; the head is kept (what led to the failure is printed first, as a rule).
_OUTPUT_CHARS = 4_000


def nothing_failed(result: TestRunResult) -> bool:
    """Whether the run ended with no failure and was not stopped: what `gradle-repl test` exits 0 for."""
    return result.failed == 0 and result.stopped is None and not result.state_lost


def summary_line(result: TestRunResult) -> str:
    counts = [f"{result.passed} passed", f"{result.failed} failed"]
    counts += [f"{result.skipped} skipped"] if result.skipped else []
    counts += [f"{result.aborted} aborted"] if result.aborted else []
    return f"{', '.join(counts)} in {result.duration_ms / 1000:.1f} s"


def fit_test_run(result: TestRunResult, limit: int = RESULT_LIMIT_CHARS) -> tuple[TestRunResult, str | None]:
    """The result with each failure's output capped and failures past `limit` characters left out; what was cut."""
    kept: list[TestFailureDetail] = []
    used = 0
    outputs_cut = 0
    for failure in result.failures:
        if len(failure.output) > _OUTPUT_CHARS:
            outputs_cut += 1
            more = len(failure.output) - _OUTPUT_CHARS
            failure = failure.model_copy(
                update={"output": f"{failure.output[:_OUTPUT_CHARS]}… ({more} more characters)"}
            )
        size = len(failure.test) + len(failure.message) + len(failure.output) + sum(len(f) for f in failure.stack)
        if kept and used + size > limit:
            break
        kept.append(failure)
        used += size
    cuts = []
    if len(kept) < len(result.failures):
        cuts.append(
            f"{len(result.failures) - len(kept)} more failures left out (a {limit}-character limit); run them by name to see them"
        )
    if outputs_cut:
        cuts.append(f"the output of {outputs_cut} failures cut to {_OUTPUT_CHARS} characters")
    return result.model_copy(update={"failures": kept}), "; ".join(cuts) or None


def run_report(result: TestRunResult, cut: str | None = None) -> str:
    """Each failure in a few lines, then what stopped or was cut, then the summary line."""
    lines: list[str] = []
    for failure in result.failures:
        shown = f" ({failure.display_name})" if failure.display_name.removesuffix("()") not in failure.test else ""
        lines.append(f"FAILED {failure.test}{shown}")
        lines.append(f"  {failure.message}")
        lines += [f"    at {frame}" for frame in failure.stack]
        if failure.frames:
            lines.append("  what each frame held, the last time it reached its line:")
        for frame in failure.frames:
            lines.append(f"    {frame.at}")
            lines += [f"      {local.name}: {local.type} = {local.value}" for local in frame.locals]
            if frame.this is not None:
                lines.append(f"      this = {frame.this}")
        if failure.output.strip():
            lines.append("  output:")
            lines += [f"    {line}" for line in failure.output.rstrip("\n").splitlines()]
    if result.stopped is not None:
        lines.append(f"Stopped: {result.stopped}.")
    if cut is not None:
        lines.append(f"Cut: {cut}.")
    lines += [*result.failed_only_notes, *result.notices]
    lines.append(summary_line(result))
    return "\n".join(lines)


def reply_text(reply: TestReply) -> tuple[str, bool]:
    """A test call's reply as a terminal prints it (its notices first), and whether nothing failed."""
    notices = [notice.text for notice in reply.notices]
    if isinstance(reply.result, ErrorResult):
        return "\n".join([*notices, f"error: {reply.result.message}"]), False
    fitted, cut = fit_test_run(reply.result)
    probes = probe_report(fitted.probe_hits, fitted.probe_notes)
    return "\n".join([*notices, run_report(fitted, cut), *([probes] if probes else [])]), nothing_failed(reply.result)
