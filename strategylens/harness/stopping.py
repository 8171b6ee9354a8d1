"""Stop criteria of the warm-up and measurement loops, as objects (after nvbench's stopping
criteria: each is reset, is given every sample, and says whether it is finished).

A loop holds several criteria in order; the first that is finished ends it and its ``rule`` is
recorded as the trace's ``stop_rule``::

    stop = Stopping([RelNoise(0.01, min_trials=10), MaxTrials(500), TimeBudget(2.0, 3)])
    while not stop.finished():
        stop.add(one_call())
    trace["stop_rule"] = stop.rule
"""

from __future__ import annotations

import math
import time

import numpy as np


def rel_noise(samples: list[float]) -> float:
    """Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, sigma from IQR."""
    if len(samples) < 4:
        return math.inf
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    if med <= 0:
        return math.inf
    return float(1.2533 * ((q3 - q1) / 1.349) / math.sqrt(len(a)) / med)


class Criterion:
    """One rule that may end a loop. ``samples`` are the call times so far (ms), ``elapsed_s``
    the wall time since the loop began."""

    rule = "?"

    def finished(self, samples: list[float], elapsed_s: float) -> bool:
        raise NotImplementedError


class RelNoise(Criterion):
    """The median is known well enough: its relative standard error is under ``target``."""

    rule = "noise"

    def __init__(self, target: float, min_trials: int = 10) -> None:
        self.target, self.min_trials = target, min_trials

    def finished(self, samples, elapsed_s):
        return len(samples) >= self.min_trials and rel_noise(samples) < self.target


class MaxTrials(Criterion):
    rule = "max-trials"

    def __init__(self, n: int) -> None:
        self.n = n

    def finished(self, samples, elapsed_s):
        return len(samples) >= self.n


class TimeBudget(Criterion):
    """The budget is spent (and at least ``min_trials`` calls were made)."""

    rule = "budget"

    def __init__(self, seconds: float, min_trials: int = 3) -> None:
        self.seconds, self.min_trials = seconds, min_trials

    def finished(self, samples, elapsed_s):
        return elapsed_s > self.seconds and len(samples) >= self.min_trials


class MinTime(Criterion):
    """Warm-up: run for ``seconds`` and at least ``min_trials`` calls."""

    rule = "warmed-up"

    def __init__(self, seconds: float, min_trials: int = 2) -> None:
        self.seconds, self.min_trials = seconds, min_trials

    def finished(self, samples, elapsed_s):
        return elapsed_s >= self.seconds and len(samples) >= self.min_trials


class Stopping:
    """Criteria checked in order after every sample; ``rule`` names the one that ended it."""

    def __init__(self, criteria: list[Criterion]) -> None:
        self.criteria = list(criteria)
        self.samples: list[float] = []
        self.rule: str | None = None
        self.t0 = time.monotonic()

    def add(self, ms: float) -> None:
        self.samples.append(ms)

    def finished(self) -> bool:
        elapsed = time.monotonic() - self.t0
        for c in self.criteria:
            if c.finished(self.samples, elapsed):
                self.rule = c.rule
                return True
        return False
