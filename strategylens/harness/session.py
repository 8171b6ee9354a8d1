"""One solution at one size in one child: the phases of a run and the trace they record.

Phases, in order (each one's wall time lands in ``trace["phase_s"]``):

``start``       start the child and load the solution, or switch a child that ran an earlier
                size of the same solution to this size's buffer
``roundtrip``   100 no-op calls: the outside-minus-inside overhead the timer bound comes from
``warmup``      calls until the warm-up criteria are met
``measure``     timed calls until a stop criterion is met (``trace["stop_rule"]``)
``sleep``       calls in which the child sleeps D ms (D = the median call): the wake-up latency
``probes``      fresh input sets, each called twice, then a timed set as a control
``profile``     calls under CUPTI (when available)

Timed calls rotate in random balanced order over input sets 0 and 1. How each call is prepared
and checked follows ``RunConfig.io`` (see :mod:`strategylens.harness.buffers`): ``rewrite``
validates every call in full; ``resident`` validates in full the first timed call of each set,
every output up to ``full_check_bytes`` and every call whose random sample of output positions
is wrong or holds poison, and checks the rest on that sample (``sample_elements`` positions,
drawn after the call: a cache, a stale or a partial answer is wrong on the sample).

Every call also says whether device work was still queued when it returned; every call but the
timed ones copies ``return_samples`` elements of each output (all of a smaller one) at that
moment, and the elements that changed afterwards are output the caller could not yet have read
(the ``work-after-return`` audit).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from strategylens.harness.buffers import SharedBuffers
from strategylens.harness.build import BuildResult, name_launches
from strategylens.harness.device import child_cpus, parse_cpulist
from strategylens.harness.sandbox import Child, ChildFailed, allowed_paths
from strategylens.harness.stopping import MaxTrials, MinTime, RelNoise, Stopping, TimeBudget
from strategylens.harness.validate import VERDICT_KEYS, validate, validate_sample

ROUNDTRIP_CALLS = 100
LOADED_KEYS = ("sandbox", "fp_before", "fp_after", "load", "cupti", "cupti_error",
               "resident_threads", "stack_limit", "child_cpus")


@dataclass
class RunConfig:
    """Knobs of one run; every value is recorded with the results.

    ``io``, ``child_per`` and ``sleep_budget_ms`` select how much device time a solution costs
    (issue 12); :meth:`legacy` gives the behaviour before, for a before/after measurement.
    """

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
    io: str = "resident"            # resident | rewrite (see strategylens.harness.buffers)
    child_per: str = "solution"     # solution: one child runs every size | size: one per size
    sleep_budget_ms: float = 250.0  # the sleep calibration's calls: 5..20, about this long
    full_check_bytes: int = 1 << 20  # resident: outputs and inputs up to this are checked whole
    sample_elements: int = 65536    # resident: output positions checked on the other calls
    threads: int = 0                # parent threads for full comparisons (0: up to 8 cores)
    text_budget_s: float = 30.0     # AccelEval tasks: parent time for reading text outputs of
                                    # timed calls whose output bytes changed, per size
    return_samples: int = 1024      # output elements copied at the return of untimed calls
    child_cpus: str = ""            # CPUs the child may run on: "" (any), "gpu-local" (the
                                    # GPU's NUMA node, from sysfs) or a list such as "2-7,10"

    def __post_init__(self) -> None:
        if self.io not in ("resident", "rewrite"):
            raise ValueError(f"RunConfig.io: {self.io!r} is not 'resident' or 'rewrite'")
        if self.child_per not in ("solution", "size"):
            raise ValueError(f"RunConfig.child_per: {self.child_per!r} is not 'solution' or 'size'")
        if self.child_cpus not in ("", "gpu-local"):
            parse_cpulist(self.child_cpus)  # raises ValueError naming the problem

    @classmethod
    def legacy(cls, **kw) -> RunConfig:
        """The harness before issue 12: inputs rewritten and outputs validated in full around
        every call, a new child per size, sleep calibration up to 1 s."""
        return cls(**{"io": "rewrite", "child_per": "size", "sleep_budget_ms": 1000.0,
                      "threads": 1, **kw})

    def with_(self, **kw) -> RunConfig:
        return replace(self, **kw)

    @property
    def parent_threads(self) -> int:
        return self.threads or max(1, min(8, os.cpu_count() or 1))

    def measure_criteria(self) -> list:
        return [RelNoise(self.noise_target, self.min_trials), MaxTrials(self.max_trials),
                TimeBudget(self.measure_s, 3)]


def rotation(rng: random.Random):
    """Endless random order over sets 0 and 1, balanced in blocks of four."""
    while True:
        block = [0, 0, 1, 1]
        rng.shuffle(block)
        yield from block


def start_child(build: BuildResult, layouts: dict[str, SharedBuffers], first: str,
                cfg: RunConfig, native: dict[str, Path], cuda_home: Path,
                adapter: bool = False, copy_in: dict[str, Path] | None = None
                ) -> tuple[Child, dict]:
    """A child with the solution loaded, mapping buffer ``first`` (it may switch to any other
    of ``layouts`` later); returns it and its ``loaded`` reply. ``adapter``: the solution is
    an AccelEval build driven through its task_io adapter (``copy_in``: its data folders)."""
    setup = {"so_path": build.so_path, "layouts": {k: b.setup() for k, b in layouts.items()},
             "layout": first, "device": cfg.device, "cupti": cfg.cupti,
             "landlock": cfg.landlock, "ro_paths": allowed_paths(cuda_home), "rw_paths": ["/dev"],
             "adapter": adapter, "cpus": child_cpus(cfg.child_cpus, cfg.device)}
    child = Child(native, setup, cfg, memfds=[b.memfd for b in layouts.values()],
                  copy_in=copy_in)
    try:
        loaded, _ = child.recv(180)
    except ChildFailed:
        child.close()
        raise
    return child, loaded


class Session:
    """Runs the phases for one (solution, size) and records the trace.

    ``compare(got, expected, tight) -> CompareResult`` is the task's comparison; ``elementwise``
    says whether its mode compares position by position (exact, numeric), which sampled checks
    need. ``child``/``loaded``: a child that already ran an earlier size of this solution
    (``layouts`` then holds every size's buffer it maps). The session leaves a healthy child
    running in ``self.child``; the caller closes it.
    """

    def __init__(self, build: BuildResult, size: str, buffers: SharedBuffers, cfg: RunConfig,
                 native: dict[str, Path], compare, cuda_home: Path, elementwise: bool = True,
                 child: Child | None = None, loaded: dict | None = None,
                 layouts: dict[str, SharedBuffers] | None = None) -> None:
        self.build, self.size, self.buffers, self.cfg = build, size, buffers, cfg
        self.native, self.compare, self.cuda_home = native, compare, cuda_home
        self.elementwise = elementwise
        self.child, self.loaded = child, loaded
        self.layouts = layouts or {buffers.key: buffers}
        self.sets = buffers.sets
        self.rng = random.Random(cfg.seed)
        self.sample_rng = np.random.default_rng()  # positions the solution cannot predict
        self.trace: dict[str, Any] = {"status": "ok", "detail": "", "trials": [], "size": size,
                                      "phase_s": {},
                                      "io": "resident" if buffers.resident else "rewrite"}
        self.last_verdict: dict[int, tuple[dict, dict]] = {}
        self.validated_timed: set[int] = set()

    # ------------------------------------------------------------------ one call
    def _full(self, k: int, phase: str, outputs: dict) -> bool:
        """Whether this call's outputs are validated in full (else on a sample)."""
        if not self.buffers.resident or not self.elementwise:
            return True
        if sum(v.nbytes for v in outputs.values()) <= self.cfg.full_check_bytes:
            return True
        if phase == "timed" and k not in self.validated_timed:
            self.validated_timed.add(k)
            return True
        return False

    def call(self, k: int, phase: str, profile: bool = False) -> dict:
        """One validated call of the solution on input set ``k``."""
        child, buf = self.child, self.buffers
        slot = buf.load(k)
        check = self.cfg.return_samples if phase != "timed" else 0  # timed calls: nothing extra
        child.send({"op": "prep", "scalars": buf.scalars(k), "slot": slot, "profile": profile,
                    "check_return": check})
        ready, _ = child.recv()
        if "cuda_error" in ready:
            raise ChildFailed("gpu-fault", ready["cuda_error"])
        t0 = child.send({"op": "go", "profile": profile})
        done, t1 = child.recv()
        msg, _ = child.recv()
        rec = {"phase": phase, "set": k, "outside_ms": (t1 - t0) / 1e6,
               "inside_ms": done["inside_ms"], "return_ms": done["inside_return_ms"],
               "event_ms": msg["event_ms"], "cpu_ms": msg["cpu_ms"],
               "mem_used": msg.get("mem_used"), "threads": msg.get("threads"),
               "return_pending": msg.get("return_pending")}
        if msg.get("pin_ms"):
            rec["pin_ms"] = msg["pin_ms"]
        if msg.get("live_bytes") is not None:
            rec["live_bytes"] = msg["live_bytes"]
        if "return_checked" in msg:
            rec.update(return_checked=msg["return_checked"], return_changed=msg["return_changed"])
        if msg.get("profile") is not None:
            rec["profile"] = msg["profile"]
        if "cuda_error" in msg:
            seen = child.cuda_errors()
            raise ChildFailed("gpu-fault", msg["cuda_error"] + (
                f"; CUDA: {' | '.join(seen[-4:])}" if seen else ""))
        self.check(k, phase, slot, rec)
        rec["inputs_changed"] = buf.inputs_changed(k)
        if rec["inputs_changed"] and buf.resident:
            buf.restore(k)  # the next call on this set gets its real inputs again
        self.trace["trials"].append(rec)
        return rec

    def check(self, k: int, phase: str, slot: int, rec: dict) -> None:
        """Validate the outputs of the call just made on set ``k`` into ``rec``."""
        buf = self.buffers
        outputs = buf.outputs(k)
        verdict = None
        if not self._full(k, phase, outputs):
            verdict = validate_sample(outputs, self.sets[k], self.compare, self.sample_rng,
                                      self.cfg.sample_elements)
            rec["validated"] = "sample"
        if verdict is None:  # in full: by choice, or because the sample was wrong
            # against this set's own answer; other sets' answers detect stale output
            got = {name: v.copy() for name, v in outputs.items()}
            verdict = validate(got, self.sets[k], self.sets, self.compare,
                               self.last_verdict.get(k), bitwise=buf.resident)
            self.last_verdict[k] = (got, {key: verdict[key] for key in VERDICT_KEYS})
            rec["validated"] = "full"
        rec.update(verdict)

    def _timed_op(self, op: dict) -> tuple[dict, float]:
        """A prep then one calibration call (noop or sleep); its outside time in ms."""
        self.child.send({"op": "prep", "scalars": {}})
        self.child.recv()
        t0 = self.child.send(op)
        msg, t1 = self.child.recv()
        self.child.recv()
        return msg, (t1 - t0) / 1e6

    # ------------------------------------------------------------------ phases
    adapter = False                      # AdapterSession: driven through task_io
    copy_in: dict[str, Path] | None = None

    def start(self) -> None:
        if self.child is None:
            self.child, self.loaded = start_child(self.build, self.layouts, self.buffers.key,
                                                  self.cfg, self.native, self.cuda_home,
                                                  self.adapter, self.copy_in)
            self.shim_from = 0
        else:  # the child ran an earlier size: same load, this size's buffer
            self.child.restart_clock()
            self.child.send({"op": "layout", "key": self.buffers.key})
            self.child.recv()
            self.trace["child_reused"] = True
            self.shim_from = len(self.child.shim_lines)
        self.trace.update({k: self.loaded.get(k) for k in LOADED_KEYS},
                          mem_after_load=self.loaded.get("mem_used"),
                          live_after_load=self.loaded.get("live_bytes"),
                          stack_bytes_max=max((k["stack_bytes"] for k in self.build.kernels),
                                              default=0))

    def roundtrip(self) -> None:
        overhead = []
        for _ in range(ROUNDTRIP_CALLS):
            msg, outside = self._timed_op({"op": "noop"})
            overhead.append(outside - msg["inside_ms"])
        self.trace["noop_overhead_ms"] = overhead
        if self.child.load_lines is None:  # the load's shim lines have long been drained
            self.child.load_lines = len(self.child.shim_lines)

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
        idle parent, which a no-op call does not see. No child clock is involved. 5 to 20
        calls, about ``sleep_budget_ms`` in all."""
        d = float(np.median(times))
        over = []
        for _ in range(int(min(20, max(5, self.cfg.sleep_budget_ms / max(d, 1e-3))))):
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
        """Every phase; a failure of the child ends the run with ``status`` set to its cause
        (the child is closed then, and ``self.child`` is None)."""
        try:
            self._phase("start", self.start)
            self._phase("roundtrip", self.roundtrip)
            order = rotation(self.rng)
            self._phase("warmup", self.warmup, order)
            times = self._phase("measure", self.measure, order)
            self._phase("sleep", self.sleep, times)
            self._phase("probes", self.probes)
            self._phase("profile", self.profile)
        except ChildFailed as exc:
            self.trace.update(status=exc.reason, detail=exc.detail[:2000])
            if self.child is not None:
                self.child.close()
        finally:
            if self.child is not None:
                self.record_logs(self.trace)
            if self.child is not None and not self.child.alive:
                self.child = None
        return self.trace

    def record_logs(self, trace: dict) -> None:
        """The child's stdout, stderr and shim lines (those of the load and this session)."""
        c = self.child
        trace["stdout_bytes"], trace["stdout_head"] = c.stdout_head()
        trace["stderr_tail"] = c.stderr_tail()
        load = c.shim_lines[:c.load_lines] if c.load_lines is not None and self.shim_from else []
        lines = load + c.shim_lines[self.shim_from:]
        trace["shim"] = [ln for ln in lines if not ln.startswith("cuda\t")]
        trace["cuda_errors"] = name_launches([ln.partition("\t")[2] for ln in lines
                                              if ln.startswith("cuda\t")], c.so_path)
        trace["child_pid"] = c.proc.pid


def run_solution(task, build: BuildResult, size: str, buffers: SharedBuffers, cfg: RunConfig,
                 native: dict[str, Path], compare, cuda_home: Path) -> dict:
    """Run one built solution at one size in a child of its own; return its trace for the
    audit and the store.

    ``buffers`` hold at least three input sets: sets 0 and 1 rotate through the timed calls,
    sets 2 and up are fresh inputs for the cross-call probe. The trace holds ``status`` ('ok'
    or the failure reason), ``trials`` (every raw call) and the fields the audit reads.
    """
    elementwise = task.correctness.mode in ("exact", "numeric")
    session = Session(build, size, buffers, cfg, native, compare, cuda_home, elementwise)
    trace = session.run()
    finish(session, [(trace, buffers)])
    return trace


def finish(session: Session, runs: list[tuple[dict, SharedBuffers]]) -> None:
    """After the last size of a child: close it (its final logs go to the last trace), then
    compare every resident input set it could reach with the parent's copy, restore what
    changed and record it in that size's trace (``inputs_final_changed``)."""
    t0 = time.monotonic()
    if session.child is not None:
        session.child.close()
        session.record_logs(runs[-1][0])
        session.child = None
    runs[-1][0]["phase_s"]["close"] = round(time.monotonic() - t0, 4)
    for trace, buffers in runs:
        if buffers.resident:
            t0 = time.monotonic()
            trace["inputs_final_changed"] = buffers.verify()
            trace["phase_s"]["verify"] = round(time.monotonic() - t0, 4)
