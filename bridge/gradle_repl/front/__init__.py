"""The front ends: the MCP server, the CLI, the terminal REPL and the demo. They wire the project side into the host."""
