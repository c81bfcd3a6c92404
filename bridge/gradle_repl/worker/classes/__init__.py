"""Class files and their in-place updates in the worker's JVM (HotSwap after a rebuild).

It imports the worker's shell (gradle_repl.worker) and the base, never worker.repl or worker.attach.
"""
