"""What a JVM is started with or given, built or found before a session runs: the facade and its add-ons (compiled
with the session's own Kotlin), the jars built with a JDK's javac (the attach agent's among them, with the directory it
listens in), and the class-data archive a JVM maps.

It imports the worker's shell (gradle_repl.worker) and the base, never a room. Only facade.py needs the worker's JVM:
the host and the front ends import the rest.
"""
