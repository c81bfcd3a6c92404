"""What a JVM is started with or given, built or found before a session runs: the facade and its add-ons (compiled
with the session's own Kotlin), the jars built with a JDK's javac, the class-data archive a JVM maps, and the preparing
worker that compiles them beside a first build.
"""
