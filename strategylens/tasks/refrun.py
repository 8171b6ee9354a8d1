"""What a reference run returns, and the compiler it was built with: shared by the own-format
references (``strategylens.tasks.reference``) and AccelEval's (``acceleval_ref``), which import
nothing else of each other."""

from __future__ import annotations

import os
import queue
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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


class Cores:
    """The CPUs this process may use, lent one at a time, so that references run in parallel
    never share a core: a timed reference pinned to a core another job also holds measures the
    other job too. ``take()`` waits until a core is free.

    Examples
    --------
    >>> cores = Cores([3, 5])
    >>> with cores.take() as a, cores.take() as b:
    ...     sorted((a, b))
    [3, 5]
    """

    def __init__(self, cpus: Iterable[int] | None = None) -> None:
        self.cpus = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for c in self.cpus:
            self._free.put(c)

    @contextmanager
    def take(self) -> Iterator[int]:
        cpu = self._free.get()
        try:
            yield cpu
        finally:
            self._free.put(cpu)
