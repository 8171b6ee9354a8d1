"""What a reference run returns, and the compiler it was built with: shared by the own-format
references (``strategylens.tasks.reference``) and AccelEval's (``acceleval_ref``), which import
nothing else of each other."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import numpy as np


def gcc_version() -> str:
    """First line of ``gcc --version``."""
    try:
        return subprocess.run(["gcc", "--version"], capture_output=True, text=True,
                              check=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


@dataclass
class ReferenceRun:
    """Expected outputs of one (task, size, seed offset) and the record of how they were timed."""

    outputs: dict[str, np.ndarray]
    record: dict
    cached: bool = False
