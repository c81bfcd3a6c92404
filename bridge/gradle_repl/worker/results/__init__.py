"""What a snippet's run becomes on the wire: the REPL's report as a result frame, output and images fitted to the frame
limit, a throwable's and a diagnostic's text, Kotlin's type names, a declared value's text, and the failures explained
to the user (a failed snippet's declaration used, a K2 REPL defect).

It imports the worker's shell (gradle_repl.worker) and the base, never a room.
"""
