"""The MCP tools of attached sessions: the JVMs running here, and attaching a session to one (registered by
front/server.py beside the session tools; the session tools then work on it as on any session)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gradle_repl.errors import GradleReplError
from gradle_repl.front.attaching import attach_session, attached_line, jvm_line
from gradle_repl.front.content import error_result, text_result
from gradle_repl.front.outputs import NoticeItem, RunningJvmItem, RunningJvms, SessionAttached, wire_list
from gradle_repl.front.parameters import BuildToolArg, ProjectPath, SourceSet
from gradle_repl.host.manager import SessionManager
from gradle_repl.project.running_jvms import list_running_jvms
from gradle_repl.settings import DEFAULT_BUILD_TOOL, DEFAULT_PROJECT_PATH, DEFAULT_SESSION_ID, DEFAULT_SOURCE_SET

__all__ = ["AttachTools"]


class AttachTools:
    """Tools over the session manager for sessions inside running applications."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager

    async def list_running_jvms(self) -> Annotated[CallToolResult, RunningJvms]:
        """List the JVMs running on this machine: pid, main class or jar, working directory, Java version, its Kotlin
        (which version, or none: a session there then compiles with gradle-repl's Kotlin and lends the snippets its
        runtime), and whether attach_kotlin_session can attach to it (same user, attach not disabled, Java 17+) or why
        not, in one line. A line per JVM, then the same as JSON; structuredContent has it as data: jvms {pid, main,
        workingDirectory, javaVersion, javaHome, user, attachable, whyNot, hasKotlin, kotlinVersion}."""
        jvms = await asyncio.to_thread(list_running_jvms)
        listed = RunningJvms(jvms=wire_list(RunningJvmItem, jvms))
        if not jvms:
            return text_result("No JVMs are running on this machine.", listed)
        lines = [jvm_line(jvm) for jvm in jvms]
        return text_result("\n".join([*lines, json.dumps(listed.model_dump(mode="json")["jvms"], indent=2)]), listed)

    async def attach_kotlin_session(
        self,
        ctx: Context,
        pid: Annotated[
            int | None,
            Field(description="The process id of a JVM running on this machine (list_running_jvms lists them).", gt=0),
        ] = None,
        address: Annotated[
            str | None,
            Field(
                description="Instead of pid: HOST:PORT (or PORT, on this machine) where the agent of an app started with "
                "`gradle-repl agent-path --listen`'s option listens: an app in a container, on another host, in a pod "
                "(through a published port, ssh -L or kubectl port-forward)."
            ),
        ] = None,
        token: Annotated[
            str | None,
            Field(
                description="With address: the agent's token itself. Prefer tokenFile or GRADLE_REPL_AGENT_TOKEN: a "
                "token in the call stays in the conversation."
            ),
        ] = None,
        tokenFile: Annotated[
            str | None,
            Field(
                description="With address: a file holding the agent's token. Left out, the token is read from "
                "GRADLE_REPL_AGENT_TOKEN, else from the file `agent-path --listen` keeps; never put it in the call."
            ),
        ] = None,
        sessionId: Annotated[
            str, Field(description="The session to run inside that JVM; a session of that id is closed first.")
        ] = DEFAULT_SESSION_ID,
        projectRoot: Annotated[
            str | None,
            Field(
                description="The app's Gradle or Maven project, for its Kotlin version and compiler plugins (kotlinx-serialization, "
                "all-open, ...); left out, snippets compile with the Kotlin of the app's kotlin-stdlib and no plugins."
            ),
        ] = None,
        projectPath: ProjectPath = DEFAULT_PROJECT_PATH,
        sourceSet: SourceSet = DEFAULT_SOURCE_SET,
        buildTool: BuildToolArg = DEFAULT_BUILD_TOOL,
    ) -> Annotated[CallToolResult, SessionAttached]:
        """Attach a session to a JVM that is already running: its snippets then run inside that application, against
        its live objects (its classes, their static state and objects; a Spring app's beans), and run_kotlin_snippet,
        check_kotlin_snippet, complete_kotlin_snippet and describe_kotlin_session work on it as on any session (their
        projectRoot may be left out and is ignored; describe reads the values inside the app). With projectRoot,
        projectPath, sourceSet and buildTool name the app's project as for run_kotlin_snippet, and only its Kotlin
        version and compiler plugins are taken: the classpath is always the running app's. Snippets compile in
        gradle-repl's own JVM; only their compiled classes go to a small agent in the app: loaded by pid (a JVM of
        this user's on this machine; its socket only this user can reach), or, with address, one the app was started
        with that listens on TCP behind a token (`gradle-repl agent-path --listen PORT` prints the option): then the
        app's class path is fetched from it once (kept by digest) and nothing is shared but the connection. What a
        snippet prints comes back here (the app's own output stays on its console). close_kotlin_session detaches: the
        app keeps running and the session's state in it is released. A lost connection ends the session's state there;
        the next call attaches again when the app answers. Attaching runs code inside that process, so never attach to
        production without meaning to.
        """
        try:
            environment, notices, where = await attach_session(
                self.manager,
                sessionId,
                pid,
                address=address,
                token=token,
                token_file=tokenFile,
                project_root=projectRoot,
                project_path=projectPath,
                source_set=sourceSet,
                build_tool=buildTool,
            )
        except GradleReplError as error:
            return error_result(str(error))
        told = "".join(f"\n{notice.text}" for notice in notices)
        attached = SessionAttached(
            session_id=sessionId,
            pid=where.pid,
            address=where.address,
            same_run=where.same_run,
            app_uptime_seconds=where.uptime_ms / 1000 if where.uptime_ms is not None else None,
            kotlin_version=environment.kotlin_version,
            java_home=environment.java_home,
            classpath_size=len(environment.classpath),
            notices=wire_list(NoticeItem, notices),
        )
        return text_result(attached_line(sessionId, environment, where) + told, attached)

    def annotated(self) -> list[tuple[Callable[..., Any], ToolAnnotations]]:
        return [
            (self.list_running_jvms, ToolAnnotations(read_only_hint=True, open_world_hint=False)),
            # It loads an agent into another process, which then runs the session's snippets.
            (self.attach_kotlin_session, ToolAnnotations(destructive_hint=True, open_world_hint=False)),
        ]
