"""gradle-repl: run Kotlin snippets inside a JVM project's own classpath, JDK and compiler plugins."""

__version__ = "0.1.0"
