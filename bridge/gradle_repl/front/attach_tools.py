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
from gradle_repl.front.attaching import attach_session, jvm_line
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
        pid: Annotated[int, Field(description="The process id of a running JVM (list_running_jvms lists them).", gt=0)],
        ctx: Context,
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
        gradle-repl's own JVM; only their compiled classes go to a small agent loaded into the app, whose socket only
        this user can reach. What a snippet prints comes back here (the app's own output stays on its console).
        close_kotlin_session detaches: the app keeps running and the session's state in it is released. Only this
        user's JVMs can be attached to; attaching runs code inside that process, so never attach to production
        without meaning to.
        """
        try:
            environment, notices = await attach_session(
                self.manager,
                sessionId,
                pid,
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
            pid=pid,
            kotlin_version=environment.kotlin_version,
            java_home=environment.java_home,
            classpath_size=len(environment.classpath),
            notices=wire_list(NoticeItem, notices),
        )
        return text_result(
            f"Session {sessionId!r} is attached to JVM {pid}: snippets run inside it (Kotlin {environment.kotlin_version}, "
            f"JDK {environment.java_home}). close_kotlin_session detaches.{told}",
            attached,
        )

    def annotated(self) -> list[tuple[Callable[..., Any], ToolAnnotations]]:
        return [
            (self.list_running_jvms, ToolAnnotations(read_only_hint=True, open_world_hint=False)),
            # It loads an agent into another process, which then runs the session's snippets.
            (self.attach_kotlin_session, ToolAnnotations(destructive_hint=True, open_world_hint=False)),
        ]
