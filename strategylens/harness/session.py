"""One solution at one size in one child: the phases of a run and the trace they record.

Phases, in order (each one's wall time lands in ``trace["phase_s"]``):

``start``       start the child and load the solution (or reuse a child that already has)
``roundtrip``   100 no-op calls: the outside-minus-inside overhead the timer bound comes from
``warmup``      calls until the warm-up criteria are met
``measure``     timed calls until a stop criterion is met (``trace["stop_rule"]``)
``sleep``       calls in which the child sleeps D ms (D = the median call): the wake-up latency
``probes``      fresh input sets, each called twice, then a timed set as a control
``profile``     calls under CUPTI (when available)

Timed calls rotate in random balanced order over input sets 0 and 1; every call is validated
against its own set's answer (:mod:`strategylens.harness.validate`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from strategylens.harness.buffers import SharedBuffers
from strategylens.harness.build import BuildResult
from strategylens.harness.sandbox import Child, ChildFailed, allowed_paths
from strategylens.harness.stopping import MaxTrials, MinTime, RelNoise, Stopping, TimeBudget
from strategylens.harness.validate import VERDICT_KEYS, validate

ROUNDTRIP_CALLS = 100


@dataclass
class RunConfig:
    """Knobs of one run; every value is recorded with the results."""

    warmup_s: float = 0.3
    measure_s: float = 2.0
    min_trials: int = 10
    max_trials: int = 500
    noise_target: float = 0.01
    call_timeout_s: float = 60.0
    solution_timeout_s: float = 600.0
    mem_limit_bytes: int = 32 << 30
    landlock: bool = True
    cupti: bool = True
    profile_calls: int = 2
    device: int = 0
    seed: int = 0

    def measure_criteria(self) -> list:
        return [RelNoise(self.noise_target, self.min_trials), MaxTrials(self.max_trials),
                TimeBudget(self.measure_s, 3)]


def rotation(rng: random.Random):
    """Endless random order over sets 0 and 1, balanced in blocks of four."""
    while True:
        block = [0, 0, 1, 1]
        rng.shuffle(block)
        yield from block


def start_child(build: BuildResult, buffers: SharedBuffers, cfg: RunConfig,
                native: dict[str, Path], cuda_home: Path) -> tuple[Child, dict]:
    """A child with the solution loaded; returns it and its ``loaded`` reply."""
    setup = {"so_path": build.so_path, "layouts": {"io": buffers.setup()}, "layout": "io",
             "device": cfg.device, "cupti": cfg.cupti, "landlock": cfg.landlock,
             "ro_paths": allowed_paths(cuda_home), "rw_paths": ["/dev"]}
    child = Child(native, setup, cfg, memfds=[buffers.memfd])
    try:
        loaded, _ = child.recv(180)
    except ChildFailed:
        child.close()
        raise
    return child, loaded


class Session:
    """Runs the phases for one (solution, size) and records the trace.

    ``compare(got, expected, tight) -> CompareResult`` is the task's comparison.
    """

    def __init__(self, build: BuildResult, size: str, buffers: SharedBuffers, cfg: RunConfig,
                 native: dict[str, Path], compare, cuda_home: Path) -> None:
        self.build, self.size, self.buffers, self.cfg = build, size, buffers, cfg
        self.native, self.compare, self.cuda_home = native, compare, cuda_home
        self.sets = buffers.sets
        self.rng = random.Random(cfg.seed)
        self.child: Child | None = None
        self.trace: dict[str, Any] = {"status": "ok", "detail": "", "trials": [], "size": size,
                                      "phase_s": {}}
        self.last_verdict: dict[int, tuple[dict, dict]] = {}

    # ------------------------------------------------------------------ one call
    def call(self, k: int, phase: str, profile: bool = False) -> dict:
        """One validated call of the solution on input set ``k``."""
        child, buf = self.child, self.buffers
        slot = buf.load(k)
        child.send({"op": "prep", "scalars": buf.scalars(k), "slot": slot, "profile": profile})
        ready, _ = child.recv()
        if "cuda_error" in ready:
            raise ChildFailed("gpu-fault", ready["cuda_error"])
        t0 = child.send({"op": "go", "profile": profile})
        done, t1 = child.recv()
        msg, _ = child.recv()
        rec = {"phase": phase, "set": k, "outside_ms": (t1 - t0) / 1e6,
               "inside_ms": done["inside_ms"], "return_ms": done["inside_return_ms"],
               "event_ms": msg["event_ms"], "cpu_ms": msg["cpu_ms"],
               "mem_used": msg.get("mem_used"), "threads": msg.get("threads")}
        if msg.get("profile") is not None:
            rec["profile"] = msg["profile"]
        if "cuda_error" in msg:
            raise ChildFailed("gpu-fault", msg["cuda_error"])
        # validation against this set's own answer; other sets' answers detect stale output
        got = {name: v.copy() for name, v in buf.outputs(k).items()}
        rec.update(validate(got, self.sets[k], self.sets, self.compare, self.last_verdict.get(k)))
        self.last_verdict[k] = (got, {key: rec[key] for key in VERDICT_KEYS})
        rec["inputs_changed"] = buf.inputs_changed(k)
        self.trace["trials"].append(rec)
        return rec

    def _timed_op(self, op: dict) -> tuple[dict, float]:
        """A prep then one calibration call (noop or sleep); its outside time in ms."""
        self.child.send({"op": "prep", "scalars": {}})
        self.child.recv()
        t0 = self.child.send(op)
        msg, t1 = self.child.recv()
        self.child.recv()
        return msg, (t1 - t0) / 1e6

    # ------------------------------------------------------------------ phases
    def start(self) -> None:
        self.child, loaded = start_child(self.build, self.buffers, self.cfg, self.native,
                                         self.cuda_home)
        self.trace.update(sandbox=loaded.get("sandbox"), fp_before=loaded.get("fp_before"),
                          fp_after=loaded.get("fp_after"), load=loaded.get("load"),
                          cupti=loaded.get("cupti"), cupti_error=loaded.get("cupti_error"),
                          mem_after_load=loaded.get("mem_used"))

    def roundtrip(self) -> None:
        overhead = []
        for _ in range(ROUNDTRIP_CALLS):
            msg, outside = self._timed_op({"op": "noop"})
            overhead.append(outside - msg["inside_ms"])
        self.trace["noop_overhead_ms"] = overhead

    def warmup(self, order) -> None:
        stop = Stopping([MinTime(self.cfg.warmup_s, 2)])
        while not stop.finished():
            stop.add(self.call(next(order), "warmup")["outside_ms"])

    def measure(self, order) -> list[float]:
        stop = Stopping(self.cfg.measure_criteria())
        while True:
            stop.add(self.call(next(order), "timed")["outside_ms"])
            if stop.finished():
                break
        self.trace["stop_rule"] = stop.rule
        return stop.samples

    def sleep(self, times: list[float]) -> None:
        """Calibration at the calls' own duration: the child sleeps D ms (kernel-timed) inside
        the timed window; outside - D is the round trip including the wake-up latency of an
        idle parent, which a no-op call does not see. No child clock is involved."""
        d = float(np.median(times))
        over = []
        for _ in range(int(min(20, max(5, 1000.0 / max(d, 1e-3))))):
            _, outside = self._timed_op({"op": "sleep", "ms": d})
            over.append(outside - d)
        self.trace["sleep_overhead_ms"] = over
        self.trace["sleep_ms"] = d

    def probes(self) -> None:
        """Cross-call probe: a fresh input set, the same again, then a timed set as a control
        for drift (the audit compares the fresh call with the calls around it); one untimed
        call first so that the probe does not follow the idle sleep calibration."""
        self.call(0, "warmup")
        for k in range(2, len(self.sets)):
            self.call(k, "probe-novel")
            self.call(k, "probe-repeat")
            self.call(0, "probe-control")

    def profile(self) -> None:
        for i in range(self.cfg.profile_calls if self.trace.get("cupti") else 0):
            self.call(i % 2, "profile", profile=True)

    def _phase(self, name: str, fn, *args):
        t0 = time.monotonic()
        try:
            return fn(*args)
        finally:
            self.trace["phase_s"][name] = round(time.monotonic() - t0, 4)

    # ------------------------------------------------------------------ the run
    def run(self) -> dict:
        """Every phase; a failure of the child ends the run with ``status`` set to its cause."""
        try:
            self._phase("start", self.start)
            self._phase("roundtrip", self.roundtrip)
            order = rotation(self.rng)
            self._phase("warmup", self.warmup, order)
            times = self._phase("measure", self.measure, order)
            self._phase("sleep", self.sleep, times)
            self._phase("probes", self.probes)
            self._phase("profile", self.profile)
            self.child.send({"op": "exit"})
            self.child.recv(30)
        except ChildFailed as exc:
            self.trace.update(status=exc.reason, detail=exc.detail[:2000])
        finally:
            if self.child is not None:
                self.child.close()
                self.trace["stdout_bytes"], self.trace["stdout_head"] = self.child.stdout_head()
                self.trace["stderr_tail"] = self.child.stderr_tail()
                self.trace["shim"] = self.child.shim_lines
                self.trace["child_pid"] = self.child.proc.pid
        return self.trace


def run_solution(task, build: BuildResult, size: str, buffers: SharedBuffers, cfg: RunConfig,
                 native: dict[str, Path], compare, cuda_home: Path) -> dict:
    """Run one built solution at one size; return its trace for the audit and the store.

    ``buffers`` hold at least three input sets: sets 0 and 1 rotate through the timed calls,
    sets 2 and up are fresh inputs for the cross-call probe. The trace holds ``status`` ('ok'
    or the failure reason), ``trials`` (every raw call) and the fields the audit reads.
    """
    return Session(build, size, buffers, cfg, native, compare, cuda_home).run()
