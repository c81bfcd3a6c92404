"""The K2 REPL in the worker's JVM: a session's compiler, its snippets' evaluation here, check, completion and describe.

It imports the worker's shell (gradle_repl.worker) and the base, never worker.attach or worker.classes: what it needs of
them, the shell hands it at boot.
"""
