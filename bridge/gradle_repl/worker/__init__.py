"""The worker process of one REPL session: `python -m gradle_repl.worker`.

It hosts a JPype JVM running the Kotlin K2 REPL and speaks frames (gradle_repl.frames) with the
server. Nothing here imports the MCP SDK.
"""
