"""The server side of sessions: policy (manager), one owner per worker (handle), the launcher seam
(launcher) and the stop ladder (shutdown). Nothing here imports mcp; import from the submodules."""
