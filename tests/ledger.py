"""What the reliability suite tried, counted by the modules that try it (test_reliability, test_http) and printed at
the end of the run (suiteplugin.py's terminal summary, summed over pytest-xdist's workers)."""

from __future__ import annotations


class Ledger:
    faults_tried = 0
    faults_survived = 0
    bad_inputs_tried = 0
    data_lost = 0
    # Requests without the token, with a wrong one, or from a foreign Host/Origin: each must be refused with nothing run.
    refused_tried = 0
    refused_but_ran = 0
    # Tool calls made by concurrent HTTP clients, and how many answers were not their own call's.
    http_calls = 0
    http_calls_wrong = 0


FIELDS = tuple(name for name in vars(Ledger) if not name.startswith("_"))
