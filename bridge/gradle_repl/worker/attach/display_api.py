"""What an attached session's snippets compile against to show things: the agent's display calls, in the package of
the agent's build."""

from __future__ import annotations

from gradle_repl.worker.artifacts.agent_jar import agent_package, build_agent_jar

__all__ = ["attached_display_api"]

# The display calls of an attached session's snippets (jvm-worker/runs-in-app/agent Display.java, in the package of the agent's
# build), imported into each by name: an explicit import outranks the facade's `gradlerepl.runtime.*`, whose display
# functions can't load in the app.
_DISPLAY_CALLS = ("display", "markdown", "html", "image")


def attached_display_api(java_home: str) -> tuple[list[str], list[str]]:
    """What an attached session's snippets compile against to show things (the agent's jar, which the app's side
    hands to snippets' loaders), and the imports that name its calls."""
    jar = build_agent_jar(java_home)
    return [str(jar)], [f"{agent_package(jar)}.Display.{call}" for call in _DISPLAY_CALLS]
