"""Fake cell runners for the scale-out tests (importable by Dask worker processes)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def fake_runner(markers, cell):
    """A cell's row as the harness would give it; solutions named dies-* kill their worker:
    dies-once.cu the first time (a marker file remembers), dies-always.cu every time."""
    marker = Path(markers) / f"{cell.task}-{cell.solution}"
    if cell.solution == "dies-always.cu" or (cell.solution == "dies-once.cu" and not marker.exists()):
        marker.touch()
        os._exit(1)
    if cell.solution == "raises.cu":
        raise RuntimeError("the harness broke")
    time.sleep(0.05)
    out = []
    for size in cell.sizes:
        row = {"task": cell.task, "solution": cell.solution, "size": size, "correct": True,
               "status": "ok", "e2e_ms_median": 1.0 + len(cell.solution), "pid": os.getpid()}
        trials = [{"phase": "timed", "outside_ms": 1.0}]
        out.append((row, trials, {"trials": trials, "note": "fake"}))
    return out
