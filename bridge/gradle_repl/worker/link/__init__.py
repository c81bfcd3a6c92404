"""The attach agent's channel, as both its users speak it: the wire (agent_wire.py, checked against the agent's one
table, wire_table.py), the two ways to reach an agent (a Unix socket here; TCP behind a token anywhere) and what goes
over it before a session starts (the app's class path, app_classpath.py). No JPype: the attach room's worker and the
front end's first look at an app over TCP (front/attaching.py) both use it.

It imports the worker's shell (gradle_repl.worker), worker.results and the base, never a session's room.
"""
