"""The link to an agent in another JVM: an attached session's snippets compile in this worker and run in the app.

It imports the worker's shell (gradle_repl.worker) and the base, never worker.repl or worker.classes.
"""
