"""The MCP server (stdio, or Streamable HTTP through front/http.py): thin tools over SessionManager and the resolver."""

from __future__ import annotations

import asyncio
import atexit
import inspect
import json
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gradle_repl import package_version
from gradle_repl.errors import GradleReplError
from gradle_repl.frames import DisplayFrame, StreamFrame
from gradle_repl.front.agent_guide import INSTRUCTIONS
from gradle_repl.front.attach_tools import AttachTools
from gradle_repl.front.content import (
    check_failed,
    check_to_result,
    completion_failed,
    completion_to_result,
    error_result,
    reply_to_result,
    request_failed,
    test_reply_to_result,
    tests_failed,
    text_result,
)
from gradle_repl.front.outputs import (
    CodeCheck,
    CodeCompletions,
    DeclaredName,
    LiveSession,
    NoticeItem,
    ProbeStateItem,
    ProjectEnvironment,
    ProjectTestRun,
    SessionContents,
    SessionList,
    SessionOptionValues,
    SessionReset,
    SnippetRun,
    Wire,
    wire_list,
)
from gradle_repl.front.parameters import (
    BuildToolArg,
    Probes as ProbesArg,
    ProjectPath,
    ProjectRoot,
    SessionId,
    SessionProjectRoot,
    SourceSet,
    given_options,
    probes_of,
    with_session_options,
)
from gradle_repl.front.probe_tools import ProbeTools
from gradle_repl.host.handle import Analysis, Reply, TestReply
from gradle_repl.host.manager import BuildToolChoice, SessionManager
from gradle_repl.host.replay import ReplayPolicy
from gradle_repl.options import SessionOptions
from gradle_repl.project.process import refuse_new_builds, stop_all_builds
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.settings import (
    DEFAULT_BUILD_TOOL,
    DEFAULT_PROJECT_PATH,
    DEFAULT_SESSION_ID,
    DEFAULT_SOURCE_SET,
    DEFAULTS,
    TEST_SESSION_ID,
    TEST_SOURCE_SET,
    Settings,
)
from gradle_repl.target import SessionTarget

__all__ = ["build_server", "serve", "serve_http", "KotlinTools"]

# Build tools print hundreds of lines; progress notifications at most this often keep clients calm.
PROGRESS_INTERVAL_SECONDS = 0.25
# How long a call's end waits for its last progress lines to be sent.
RELAY_DRAIN_SECONDS = 2.0
# A progress message is a glance at what happens, not the output itself (the reply carries all of it).
PROGRESS_MESSAGE_CHARS = 300


class _ProgressRelay:
    """Carries build-tool lines from the resolver's thread to MCP progress notifications."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._loop = asyncio.get_running_loop()
        # None: the call ended.
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._step = 0
        self._last = 0.0

    def __call__(self, line: str) -> None:
        self._loop.call_soon_threadsafe(self._queue.put_nowait, line)

    async def pump(self) -> None:
        """Sends lines until the call ends; one arriving within the interval of the last sent waits for a newer one,
        and the newest still waiting when the call ends is sent then: the client's last progress is where it got to."""
        waiting: str | None = None
        while True:
            line = await self._queue.get()
            if line is None:
                if waiting is not None:
                    await self._send(waiting)
                return
            now = time.monotonic()
            if now - self._last < PROGRESS_INTERVAL_SECONDS and not self._queue.empty():
                waiting = line
                continue
            waiting = None
            self._last = now
            await self._send(line)

    def end(self) -> None:
        """No more lines: the pump sends what waits and returns. Lines handed over before this come first."""
        self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    async def _send(self, line: str) -> None:
        self._step += 1
        await self._ctx.report_progress(self._step, None, line[:PROGRESS_MESSAGE_CHARS])

    def output(self, frame: StreamFrame | DisplayFrame) -> None:
        """A running snippet's output, shown as progress so a long snippet shows life."""
        if isinstance(frame, StreamFrame):
            last = frame.data.rstrip("\n").rsplit("\n", 1)[-1]
            self(f"[{frame.event}] {last}")
        else:
            self(f"[display {frame.kind}]")


@asynccontextmanager
async def _relay(ctx: Context) -> AsyncIterator[_ProgressRelay]:
    relay = _ProgressRelay(ctx)
    task = asyncio.create_task(relay.pump())
    try:
        yield relay
    finally:
        # The call's last lines (a test run's final count, say) reach the client before its result; a client that went
        # away gets none, and a pump stuck on one gets cancelled.
        relay.end()
        try:
            await asyncio.wait_for(task, RELAY_DRAIN_SECONDS)
        except Exception:  # noqa: BLE001 - a timeout too: progress is best effort; the result must still go out
            task.cancel()


_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T")


async def _answered(
    ctx: Context,
    call: Callable[[_ProgressRelay], Awaitable[_T]],
    to_result: Callable[[_T], CallToolResult],
    failed: Callable[[str], Wire],
) -> CallToolResult:
    """A call on a session with its progress relayed to the client; a user's error becomes one error result, with
    the tool's data saying so."""
    try:
        async with _relay(ctx) as relay:
            answer = await call(relay)
    except GradleReplError as error:
        return error_result(str(error), failed(str(error)))
    return to_result(answer)


def _described(fn: _F) -> str:
    """A tool's docstring as clients should see it: without the source's indentation."""
    return inspect.cleandoc(fn.__doc__ or "")


class KotlinTools:
    """The server's tools: each adapts its arguments to the session manager and its answer to MCP content.

    Methods of their own (not closures inside build_server), so tests can call them directly; their names,
    parameters and docstrings are what clients see."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager

    def target(
        self,
        project_root: str | None,
        project_path: str,
        source_set: str,
        build_tool: BuildToolChoice,
        session_id: str,
    ) -> SessionTarget:
        """The session a call names. Only a session attached to a running JVM may leave its project out: it runs
        the JVM's classes, whatever project a call names, and its target is the one it was attached with."""
        if project_root is None:
            attached = self.manager.attached_environment(session_id)
            if attached is None:
                raise GradleReplError(
                    f"projectRoot is needed: session {session_id!r} is not attached to a running JVM (attach_kotlin_session)"
                )
            return SessionTarget.of(attached, session_id)
        return SessionTarget(project_root, project_path, source_set, build_tool, session_id)

    @with_session_options
    async def run_kotlin_snippet(
        self,
        code: Annotated[str, Field(description="Kotlin code; the last expression's value is returned.")],
        ctx: Context,
        projectRoot: SessionProjectRoot = None,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        timeoutSeconds: Annotated[
            float | None,
            Field(
                description=f"Stop the snippet after this many seconds (default {DEFAULTS.snippet_timeout_seconds:g}).",
                gt=0,
                le=3600,
            ),
        ] = None,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
        replay: Annotated[
            ReplayPolicy | None,
            Field(
                description="Session option: 'on_restart' runs the session's earlier successful snippets again, in order, "
                "after a restart a project change forced; 'never' (the default) doesn't, since snippets can have side "
                "effects. Changing it never restarts the session."
            ),
        ] = None,
        probes: ProbesArg = None,
        **options: object,
    ) -> Annotated[CallToolResult, SnippetRun]:
        """Run Kotlin code in a REPL session with the project's classes, dependencies, JDK and compiler plugins.

        The first call for a project builds it (cached until build files or sources change) and starts a JVM
        (a few seconds); later calls take well under a second. Declarations, imports and values persist across
        calls with the same sessionId. After an edit to the project's sources, the rebuilt classes are updated in the
        live session (state kept; the next snippet runs the new bodies); a change the JVM can't take in place (a
        method, field or lambda added or removed, a class deleted, a dependency, plugin or JDK changed) restarts the
        session, and the reply says why and what was lost.
        In snippets: display(value), markdown(text), html(fragment), image(bytes or BufferedImage) show rich output;
        println goes to the reply. Returns the last expression's value and type, then displays, then printed output.
        Compile errors, exceptions (with a stack trimmed to the snippet) and timeouts come back with isError.
        structuredContent has the same as data: value, valueType, error {kind, message, stack, stateLost},
        diagnostics with line/column, stdout, stderr, displayCount, notices {kind, text}.
        Session options (the parameters so described) apply from a session's first call; given again later, the
        same ones change nothing and other ones restart the session (the reply says so; replay never does); left out,
        the session's stay.
        """

        async def run(relay: _ProgressRelay) -> Reply:
            return await self.manager.run_snippet(
                self.target(projectRoot, projectPath, sourceSet, buildTool, sessionId),
                code=code,
                timeout_seconds=timeoutSeconds,
                progress=relay,
                on_frame=relay.output,
                options=given_options(options),
                replay=replay,
                probes=probes_of(probes),
            )

        return await _answered(ctx, run, reply_to_result, request_failed)

    async def run_project_tests(
        self,
        projectRoot: ProjectRoot,
        ctx: Context,
        tests: Annotated[
            list[str] | None,
            Field(
                description="Which tests: a class `shop.CartTest` (a nested one `shop.CartTest.Empty`), a method "
                "`shop.CartTest.oneItem`, a package `shop.*`; none runs every test of the source set."
            ),
        ] = None,
        failedOnly: Annotated[
            bool,
            Field(
                description="Run the tests known to fail: those that failed in a run of this session and haven't passed "
                "since, whatever narrower runs came between (of `tests`, when given). With none known, every test of the "
                "selection runs; notices say which ran, and which known failures no longer exist."
            ),
        ] = False,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: Annotated[
            str,
            Field(
                description="The test source set whose tests run: 'test', another Gradle source set, or a Kotlin "
                "Multiplatform JVM test compilation ('jvmTest', 'desktopTest')."
            ),
        ] = TEST_SOURCE_SET,
        sessionId: Annotated[
            str,
            Field(
                description="Names the test session; run_kotlin_snippet with the same sourceSet ('test' by default) "
                "and this sessionId reaches the same session (its state, the last run's failures)."
            ),
        ] = TEST_SESSION_ID,
        timeoutSeconds: Annotated[
            float | None,
            Field(
                description=f"Stop the run after this many seconds (default {DEFAULTS.snippet_timeout_seconds:g}); the running "
                "test is interrupted and the session stays usable.",
                gt=0,
                le=3600,
            ),
        ] = None,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
        probes: ProbesArg = None,
        explainFailures: Annotated[
            bool,
            Field(
                description=f"Explain each failed test (the first {DEFAULTS.explained_failures}): it runs again alone "
                "with probes at its failure's frames in the project's code, and the failure gains `frames`, from the test "
                "method to the throwing frame, each with the locals and `this` it held the last time it reached its "
                "line. The test's side effects happen twice."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, ProjectTestRun]:
        """Run the project's JUnit Platform tests (JUnit 5 Jupiter, JUnit 4 through the vintage engine, kotlin.test) inside
        a warm session of the test source set: a re-run takes a fraction of a second, with no build tool started.

        An edit since the last call takes the session's edit path first (test sources included): classes updated in
        place, or the session restarted with the reason. The build's test settings apply (surefire's or Gradle's system
        properties, environment, includes/excludes, tags; what can't apply is said). Returns the counts and each
        failure: test, display name, message, the stack's frames in the project's own code, and what the failing test
        printed (a passing test's output is dropped); progress notifications as tests finish. Failing tests are not an
        error (isError is for a run that could not happen). After a run, snippets in the same session (the same sourceSet,
        this sessionId) see `lastTestFailures: List<TestFailure>` (test, displayName, exception, output) and whatever
        state the tests left. structuredContent: passed, failed, skipped, aborted, durationMs, failures {test,
        displayName, message, stack, output}, stopped, cut, error, notices.
        """

        async def run(relay: _ProgressRelay) -> TestReply:
            target = SessionTarget(projectRoot, projectPath, sourceSet, buildTool, sessionId)
            return await self.manager.run_tests(
                target,
                selectors=tests or [],
                failed_only=failedOnly,
                timeout_seconds=timeoutSeconds,
                progress=relay,
                on_test=relay,
                probes=probes_of(probes),
                explain_failures=explainFailures,
            )

        return await _answered(ctx, run, test_reply_to_result, tests_failed)

    async def check_kotlin_snippet(
        self,
        code: Annotated[str, Field(description="Kotlin code to check as the session's next snippet.")],
        ctx: Context,
        projectRoot: SessionProjectRoot = None,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
    ) -> Annotated[CallToolResult, CodeCheck]:
        """Compile Kotlin code in a session's current state without running it: the compiler's errors and warnings
        (each with line, column, the offending line and a caret) and the type its last expression would have.

        Runs nothing and changes nothing: the session's declarations, values and snippet numbering stay as they
        were, and running the same code later behaves as if it had never been checked. The code sees everything
        earlier snippets declared and imported, and the project's classes, dependencies and compiler plugins.
        Errors come back with isError; warnings alone don't. @file:DependsOn libraries are not resolved by a check.
        Once the session has answered a completion, a check stops before the JVM backend: errors only the backend
        finds (a platform declaration clash, an accidental override) are then reported by running the code, not here.
        A live session is checked as it is, never rebuilt or restarted (a project changed since it started is picked
        up by the next run: updated in place or restarted); a session without a JVM is started (and the project built) the way run_kotlin_snippet
        does. structuredContent has the same as data: ok, valueType, diagnostics {severity, message, line, column,
        text}, error, notices.
        """

        async def check(relay: _ProgressRelay) -> Analysis:
            where = self.target(projectRoot, projectPath, sourceSet, buildTool, sessionId)
            return await self.manager.check_snippet(where, code=code, progress=relay)

        return await _answered(ctx, check, check_to_result, check_failed)

    async def complete_kotlin_snippet(
        self,
        code: Annotated[str, Field(description="The Kotlin code being written (a snippet, as it would be run).")],
        ctx: Context,
        projectRoot: SessionProjectRoot = None,
        cursor: Annotated[
            int | None,
            Field(description="0-based character offset into code where completion is wanted; default: the end.", ge=0),
        ] = None,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
    ) -> Annotated[CallToolResult, CodeCompletions]:
        """Complete Kotlin code at a cursor against a session's live state: names earlier snippets declared and
        imported, members after `x.`, extension functions in scope, the project's and dependencies' packages and
        classes, JDK classes, keywords. Each candidate: the text to insert in place of the identifier prefix before
        the cursor, its kind, and its signature or type; best first, at most 50. Runs nothing and changes nothing,
        and never rebuilds or restarts a live session. structuredContent has the same as data: items {text, kind, detail}, prefixStart, unavailable.
        """

        async def complete(relay: _ProgressRelay) -> Analysis:
            where = self.target(projectRoot, projectPath, sourceSet, buildTool, sessionId)
            return await self.manager.complete_snippet(where, code=code, cursor=cursor, progress=relay)

        return await _answered(ctx, complete, completion_to_result, completion_failed)

    async def reset_kotlin_session(
        self,
        sessionId: SessionId = DEFAULT_SESSION_ID,
        replay: Annotated[
            bool,
            Field(
                description="Restart and run all: start a new JVM now (the project rebuilt if it changed) and run "
                "the session's successful snippets again in order, stopping at the first that fails."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, SessionReset]:
        """Hard-reset a session: its JVM is killed and all its state dropped; the next snippet starts fresh. With
        replay=true, a new JVM starts at once and the session's earlier successful snippets run again in order (their
        side effects too); the reply says how many ran."""
        if replay:
            try:
                notices = await self.manager.reset_and_replay(sessionId)
            except GradleReplError as error:
                return error_result(str(error))
            restarted = SessionReset(session_id=sessionId, outcome="restarted", notices=wire_list(NoticeItem, notices))
            return text_result(
                "\n".join([f"Session {sessionId!r} was restarted.", *(n.text for n in notices)]), restarted
            )
        if await self.manager.reset(sessionId):
            reset = SessionReset(session_id=sessionId, outcome="reset")
            return text_result(f"Session {sessionId!r} was reset; the next snippet starts a fresh JVM.", reset)
        idle = SessionReset(session_id=sessionId, outcome="not running")
        return text_result(f"Session {sessionId!r} had no running JVM; nothing to reset.", idle)

    async def close_kotlin_session(self, sessionId: SessionId = DEFAULT_SESSION_ID) -> CallToolResult:
        """Close a session and free its JVM (about 0.5 GB). Its state is gone."""
        if await self.manager.close(sessionId):
            return text_result(f"Session {sessionId!r} closed.")
        return text_result(f"No session {sessionId!r}.")

    async def list_kotlin_sessions(self) -> Annotated[CallToolResult, SessionList]:
        """List live sessions as JSON: id, state (starting/idle/running), project, source set, Kotlin version,
        JDK, snippets run, names declared, uptime, idle time, worker pid and resident memory."""
        listed = SessionList(sessions=wire_list(LiveSession, self.manager.list()))
        text = json.dumps(listed.model_dump(mode="json")["sessions"], indent=2)
        return text_result(text if listed.sessions else "No live sessions.", listed)

    async def describe_kotlin_session(
        self, sessionId: SessionId = DEFAULT_SESSION_ID
    ) -> Annotated[CallToolResult, SessionContents]:
        """What a session holds, to pick up a session you did not start: its imports, and the names its snippets
        declared as the REPL resolves them now (newest definition wins) — vals and vars with their type and
        current value (capped), functions with their signatures, classes, objects, interfaces, typealiases —
        each with the snippet that declared it. For a session attached to a running JVM, the values are read inside
        that application when asked, and attachedPid names it. Waits for a running snippet to finish."""
        try:
            description = await self.manager.describe(sessionId)
        except GradleReplError as error:
            return error_result(str(error))
        options = self.manager.session_options(sessionId) or SessionOptions()
        attached = self.manager.attached_pid(sessionId)
        address = self.manager.attached_address(sessionId)
        contents = SessionContents(
            session_id=sessionId,
            imports=description.imports,
            libraries=description.libraries,
            declarations=wire_list(DeclaredName, description.declarations),
            options=SessionOptionValues.model_validate(options.masked()),
            attached_pid=attached,
            attached_address=address,
            probes=wire_list(ProbeStateItem, description.probes),
        )
        summary = description.summary(sessionId)
        if attached is not None or address is not None:
            where = f"JVM {attached}" if attached is not None else f"the app at {address}"
            summary += f"\nAttached to {where}: its snippets run, and its values live, inside that application."
        if not options.is_default():
            summary += f"\nSession options: {options.summary()}"
        return text_result(summary, contents)

    async def resolve_gradle_environment(
        self,
        projectRoot: ProjectRoot,
        ctx: Context,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
        refresh: Annotated[bool, Field(description="Ignore the cache and run the build again.")] = False,
    ) -> Annotated[CallToolResult, ProjectEnvironment]:
        """Build the project and summarise what snippets would see: build tool, Kotlin version, JDK, classpath size,
        compiler plugins; the data has the classpath, plugins and compiler arguments in full. Cached until build files
        or sources change."""
        try:
            async with _relay(ctx) as relay:
                resolved = await self.manager.resolve(
                    projectRoot,
                    project_path=projectPath,
                    source_set=sourceSet,
                    build_tool=buildTool,
                    progress=relay,
                    refresh=refresh,
                )
        except GradleReplError as error:
            return error_result(str(error))
        notices = "".join(f"\n{notice}" for notice in resolved.notices)
        shown = resolved.environment.model_dump(include=set(ProjectEnvironment.model_fields) - {"origin", "notices"})
        data = ProjectEnvironment.model_validate(
            {**shown, "origin": resolved.origin(), "notices": list(resolved.notices)}
        )
        return text_result(f"{resolved.environment.summary()}\n({resolved.origin()}){notices}", data)

    def annotated(self) -> list[tuple[Callable[..., Any], ToolAnnotations]]:
        """Each tool with what it promises a client about its effects."""
        return [
            (self.run_kotlin_snippet, ToolAnnotations(open_world_hint=False)),
            # Neither runs the snippet nor changes the session; like a run, they may build the project first.
            (self.check_kotlin_snippet, ToolAnnotations(idempotent_hint=True, open_world_hint=False)),
            (self.run_project_tests, ToolAnnotations(open_world_hint=False)),
            (self.complete_kotlin_snippet, ToolAnnotations(idempotent_hint=True, open_world_hint=False)),
            (
                self.reset_kotlin_session,
                ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
            ),
            (
                self.close_kotlin_session,
                ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
            ),
            (self.list_kotlin_sessions, ToolAnnotations(read_only_hint=True, open_world_hint=False)),
            (self.describe_kotlin_session, ToolAnnotations(read_only_hint=True, open_world_hint=False)),
            # It runs the project's build (which writes outputs and may download dependencies).
            (
                self.resolve_gradle_environment,
                ToolAnnotations(read_only_hint=False, idempotent_hint=True, open_world_hint=True),
            ),
        ]


def build_server(manager: SessionManager, *, end_builds_at_exit: bool = True) -> MCPServer:
    """The MCP server over a session manager. It starts the manager's idle eviction and, when it ends, closes every
    session; with end_builds_at_exit (the real server) it also stops every build of this process and refuses new
    ones (an in-process test server leaves the process's builds alone)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        manager.start_eviction()
        try:
            yield
        finally:
            if end_builds_at_exit:
                _end_builds()
            await manager.close_all()

    server = MCPServer("gradle-repl", version=package_version(), instructions=INSTRUCTIONS, lifespan=lifespan)
    tools = KotlinTools(manager)
    for fn, hints in [
        *tools.annotated(),
        *AttachTools(manager).annotated(),
        *ProbeTools(manager, tools.target).annotated(),
    ]:
        server.tool(description=_described(fn), annotations=hints)(fn)
    return server


def _end_builds() -> None:
    # Builds belong to the server process, not to one manager: once it exits none may start.
    refuse_new_builds()
    stop_all_builds()


def _serving_manager(settings: Settings) -> SessionManager:
    manager = SessionManager.from_settings(settings, resolver=resolve_environment)
    # Last resort for exits that skip the lifespan's cleanup; workers also die with their parent.
    atexit.register(manager.kill_all_now)
    atexit.register(_end_builds)
    return manager


def serve(settings: Settings = DEFAULTS) -> None:
    """Runs the server on stdio until stdin closes or SIGTERM; workers never outlive it."""
    manager = _serving_manager(settings)

    def on_sigterm(signum: int, frame: object) -> None:
        # The stdio transport blocks in a reader thread that no exception reaches; stop the
        # workers and builds here and leave at once. There is nothing else to flush.
        _end_builds()
        manager.kill_all_now()
        os._exit(0)

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        build_server(manager).run("stdio")
    except KeyboardInterrupt:
        _end_builds()
        manager.kill_all_now()


def serve_http(settings: Settings = DEFAULTS, *, allow_remote: bool = False) -> None:
    """Runs the server over Streamable HTTP (front/http.py) until SIGTERM or Ctrl-C, which end it in order: the
    lifespan closes every session and stops the builds; workers never outlive it."""
    from gradle_repl.front import http
    from gradle_repl.front.token import server_token

    http.check_exposure(settings.http_host, allow_remote=allow_remote)
    token = server_token()
    manager = _serving_manager(settings)
    server = build_server(manager)
    # The transport's INFO lines (a line per client session) would bury what the server says on stderr.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    http.serve_http(server, token=token, settings=settings, allow_remote=allow_remote)
