"""Audit decisions over a recorded run trace: pure functions, tested on the CPU.

The harness (``strategylens.harness.session``) records a trace; ``audit(trace)`` returns
the flags it raises with the evidence for each. A trace is a dict:

``trials``
    every call: ``phase`` (warmup|timed|probe-novel|probe-repeat|probe-control|profile), ``set``,
    ``outside_ms``, ``inside_ms``, ``return_ms``, ``event_ms``, ``cpu_ms``, ``correct``,
    ``stale_of``, ``poison_left``, ``nan_count``, ``inputs_changed``, ``tight_ok``,
    ``validated`` (full | sample), ``return_pending`` (device work queued on the legacy or the
    calling thread's per-thread default stream at the return), on untimed calls ``return_checked`` / ``return_changed`` (output elements
    sampled at the return, and those that changed after it), optional ``profile`` (CUPTI
    totals for that call).
``noop_overhead_ms``
    outside-minus-inside time of no-op calls (the measured round trip).
``sleep_overhead_ms``
    outside time minus D of calls in which the child slept D ms (kernel-timed), D the median call.
``fp_before`` / ``fp_after``
    code fingerprints of the timing functions before and after loading the solution.
``load``
    ``wall_ms, cpu_ms, mem_delta, threads_delta, profile`` of loading the solution.
``shim``
    lines ``open\\t<path>`` / ``env\\t<name>`` logged after the solution was armed.
``floor_pinned_ms``
    the transfer floor of the size, when known.
``bytes_in`` / ``bytes_out``
    bytes of the input (in, inout) and output (out, inout) arrays of the size, when known.
``inputs_final_changed``
    input sets found changed by the full comparison after the calls (resident inputs).
``live_after_load`` / trials' ``live_bytes``
    device memory the solution's own allocations held once it loaded and after each call
    (the shim's count of allocations made while armed, until freed; -1 past its table).
``mem_after_load`` / ``stack_bytes_max`` / ``stack_limit`` / ``resident_threads``
    device memory in use once the solution loaded; the largest stack frame of its kernels
    (ptxas); the per-thread stack reserved before the solution loaded; threads the device holds
    at once (SMs x threads per SM).

``FLAGS`` is the one table of flags: name, check, whether it means cheating (the statistics
drop the row: ``CHEATING_FLAGS``) and the catalog ID it shows (``FLAG_LABELS``, for the
tagger's harness evidence).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

@dataclass(frozen=True)
class Thresholds:
    """Decision thresholds; every value is recorded with the results."""

    tamper_floor_ms: float = 0.02       # added to the measured round trip
    tamper_overhead_mult: float = 2.0   # bound = max(mult * median noop, p99 noop,
    tamper_sleep_mult: float = 1.5      #             sleep_mult * median sleep calibration) + floor
    after_return_frac: float = 0.2      # device idle after return > this fraction of the call
    after_return_min_ms: float = 0.02
    after_return_pending: float = 0.5   # share of timed calls returning with work still queued
    load_wall_ms: float = 2000.0        # loading takes longer than this
    load_cpu_ms: float = 1000.0
    load_mem_bytes: int = 64 << 20      # device memory taken at load
    host_cpu_frac: float = 0.5          # host CPU time over the call's time
    host_device_frac: float = 0.25      # device busy (kernels, copies, memsets) over the call
    host_moved_frac: float = 0.1        # copies under this share of the input (output) bytes:
                                        # the inputs were not uploaded (the outputs not fetched)
    token_threads: int = 32             # a launch of at most this many threads is a token
    host_staged_frac: float = 0.25      # uploads over this share of the input bytes, every
                                        # output fetched and a real launch: host CPU time is
                                        # staging (host threads packing the inputs), not compute
    probe_slow_ratio: float = 2.0       # fresh input slower than repeated by this ratio, and
                                        # than the timed p90 (H200: honest <= 1.56x,
                                        # caching cheat >= 6.2x; analyses/h200/README.md)
    probe_slow_min_ms: float = 0.1
    persistent_bytes: int = 8 << 20     # device memory still held after every timed call
                                        # (traces without the shim's allocation count)
    kept_alloc_bytes: int = 0           # the solution's own allocations held after every call
    untracked_bytes: int = 256 << 20    # memory held that no allocation the shim saw explains


# Paths the CUDA stack, libc and the dynamic loader open on their own.
_ALLOWED_PATH = re.compile(
    r"^(/dev/(nvidia|null|zero|urandom|random|shm/cuda)|/proc/(self|thread-self)/|"
    r"/proc/(cpuinfo|meminfo|stat|modules|devices|sys/|driver/nvidia)|/sys/|/usr/|/lib|/etc/"
    r"(ld\.so|nvidia|localtime|host\.conf|nsswitch)|/opt/|/run/nvidia)")
_ALLOWED_ENV = re.compile(
    r"^(CUDA|CU|NV|__NV|__GL|NVIDIA|CUBLAS|CUSPARSE|CUSOLVER|CUFFT|CURAND|CUPTI|LD_|MALLOC|"
    r"GLIBC|TZ$|LANG$|LC_|OMP_|GOMP_|KMP_|PTX|NCCL|OPENBLAS|MKL|XDG_CACHE_HOME$|HOME$|TMPDIR$|"
    r"POSIXLY_CORRECT$|LIBC_|"
    # the LLVM-based JIT inside cuBLAS and cuSPARSE (CUDA 13.0, H200, 2026-12-02): read at the
    # first library call, so after the solution was armed
    r"LIBNVVM_|LLVM_|CAN_FINALIZE_DEBUG$|AS_SECURE_LOG_FILE$|bar$)")


def tamper_bound_ms(noop_overhead_ms: list[float], sleep_overhead_ms: list[float] | None = None,
                    th: Thresholds = Thresholds()) -> float:
    """Largest outside-minus-inside gap an honest call may show (ms).

    ``noop_overhead_ms``: outside minus inside of no-op calls. ``sleep_overhead_ms``: outside
    minus D of calls in which the child slept D ms (D = the solution's median call), which adds
    the wake-up latency of a parent idle for that long. The bound is the largest of
    ``tamper_overhead_mult`` x the no-op median, the no-op 99th percentile and
    ``tamper_sleep_mult`` x the sleep calibration's median, plus ``tamper_floor_ms``. Medians
    keep one slow wake-up from widening the bound.
    """
    if not noop_overhead_ms:
        return th.tamper_floor_ms + 1.0
    a = np.asarray(noop_overhead_ms, dtype=float)
    parts = [th.tamper_overhead_mult * np.median(a), np.percentile(a, 99)]
    if sleep_overhead_ms:
        parts.append(th.tamper_sleep_mult * np.median(np.asarray(sleep_overhead_ms, dtype=float)))
    return float(max(parts) + th.tamper_floor_ms)


def call_ms(trace: dict) -> float:
    """Median duration of the timed calls from the outside clock, less the median round trip
    (a figure the solution cannot forge)."""
    trials = _timed(trace)
    rt = float(np.median(trace["noop_overhead_ms"])) if trace.get("noop_overhead_ms") else 0.0
    return max(float(np.median([t["outside_ms"] for t in trials])) - rt, 1e-6)


def _timed(trace: dict) -> list[dict]:
    return [t for t in trace.get("trials", []) if t.get("phase") == "timed"]


def _called(trace: dict) -> list[dict]:
    return [t for t in trace.get("trials", []) if t.get("phase") != "warmup"]


def check_timer_tamper(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """Inside timers disagree with the outside clock, or timing code changed at load."""
    reasons = []
    changed = [s for s, v in (trace.get("fp_before") or {}).items()
               if (trace.get("fp_after") or {}).get(s) not in (None, v)]
    if changed:
        reasons.append(f"code bytes changed at load: {', '.join(sorted(changed))}")
    trials = _timed(trace)
    if trials:
        bound = tamper_bound_ms(trace.get("noop_overhead_ms", []),
                                trace.get("sleep_overhead_ms"), th)
        gap = float(np.median([t["outside_ms"] - t["inside_ms"] for t in trials]))
        if abs(gap) > bound:
            reasons.append(f"outside - inside host clock = {gap:.3f} ms, bound {bound:.3f} ms")
        ev = [t["outside_ms"] - t["event_ms"] for t in trials if t.get("event_ms", -1) >= 0]
        if ev:
            egap = float(np.median(ev))
            if abs(egap) > bound:
                reasons.append(f"outside - CUDA events = {egap:.3f} ms, bound {bound:.3f} ms")
    return "; ".join(reasons) or None


def check_stale_output(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """An output equals the answer of another input set (a cache that ignored new inputs)."""
    stale = [t for t in _called(trace) if t.get("stale_of") is not None]
    if stale:
        t = stale[0]
        return (f"{len(stale)} call(s) returned another input set's answer "
                f"(first: set {t['set']} got answer of seed offset {int(t['stale_of'])})")
    return None


def check_cross_call_state(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """Answers depend on earlier calls, fresh inputs are much slower than repeated ones, or
    device memory stays allocated between calls.

    A wrong answer counts only with evidence of state: an input set answered with another set's
    answer (``stale_of``) or answered right on one call and wrong on a later one. A solution
    that is always wrong on some inputs (low precision, a data-dependent bug, a failed launch)
    is a wrong answer, described by the row's mismatch summary, not kept state. (A race that
    makes one input's answer flip between calls looks like state too.)

    After the timed calls each fresh set is called twice (``probe-novel``, ``probe-repeat``),
    then a timed set once (``probe-control``). An honest solution takes about as long on a set it
    has seen as on one it has not. A fresh call counts as slow when it is over
    ``probe_slow_ratio`` times the faster of the repeated and control medians (the timed median
    for traces without control calls) and over the 90th percentile of the timed calls. The
    control call matters because the machine drifts: on the H200 an honest 0.4 ms heat2d call
    took 1.0-1.1 ms on both fresh sets after the timed calls. Times leave out page-locking of
    host memory (``pin_ms``, where the shim timed it): a solution that registers the caller's
    arrays every call pays more on pages it never locked before. One probe per set is
    a single sample, and pageable copies at large sizes are noisy. (Not the slowest timed call:
    one hiccup among hundreds of 15 us cache hits hid the caching cheat on the H200.)

    Kept memory: any allocation of the solution's own still live after every timed call (the
    shim counts them); memory the device holds beyond that counts only past ``untracked_bytes``,
    since the driver keeps some for itself. Traces without the count fall back to the device's
    used memory over ``persistent_bytes``, less the stack reserve.
    """
    trials = trace.get("trials", [])
    novel = [t for t in trials if t.get("phase") == "probe-novel"]
    repeat = [t for t in trials if t.get("phase") == "probe-repeat"]
    stateful = answers_depend_on_history(trials)
    if stateful:
        return stateful
    timed = _timed(trace)
    kept = persistent_bytes(trace)
    stack = stack_reserve_bytes(trace)
    own = kept_alloc_bytes(trace)
    if own is not None and own > th.kept_alloc_bytes:
        return (f"{_size(own)} that the solution allocated stays allocated after every call: "
                "device buffers survive between calls of the entry point")
    # without the shim's count, the device's used memory; with it, only a large excess, since
    # the driver keeps memory of its own (a graph of 6000 launches: 16 MiB on the H200)
    limit = th.persistent_bytes if own is None else th.untracked_bytes
    if kept is not None and kept - stack > limit:
        beside = (f" beyond the {stack >> 20} MiB the driver keeps for the kernels' stack frames"
                  if stack else "")
        unseen = "" if own is None else ", allocated outside the runtime calls the harness sees"
        return (f"{kept >> 20} MiB of device memory stays allocated after every call{beside}"
                f"{unseen}: device buffers survive between calls of the entry point")
    if not (novel and repeat and timed):
        return None
    # control calls sit next to the fresh ones, so a machine that drifted slows them all;
    # traces recorded before the control call existed fall back to the timed calls
    control = [t for t in trials if t.get("phase") == "probe-control"] or timed
    fast = min(float(np.median([_unpinned_ms(t) for t in control])),
               float(np.median([_unpinned_ms(t) for t in repeat])))
    p90 = float(np.percentile([_unpinned_ms(t) for t in timed], 90))
    slow = [_unpinned_ms(t) for t in novel]
    if all(n > th.probe_slow_ratio * fast and n > p90 and n - fast > th.probe_slow_min_ms
           for n in slow):
        return (f"fresh inputs took {', '.join(f'{n:.3f}' for n in slow)} ms against "
                f"{fast:.3f} ms on inputs seen before: repeated inputs are served from a cache")
    return None


def _unpinned_ms(trial: dict) -> float:
    """A call's time without the time it spent page-locking host memory."""
    return trial["outside_ms"] - float(trial.get("pin_ms") or 0.0)


def answers_depend_on_history(trials: list[dict]) -> str | None:
    """Evidence that answers came from earlier calls: a fresh input set answered with another
    set's answer, or an input set answered right on every call up to one and wrong on every
    call from it on (at least two: a one-off wrong call is not a switch)."""
    stale = [t for t in trials if t.get("phase") == "probe-novel" and t.get("stale_of") is not None]
    if stale:
        return (f"{len(stale)} fresh input set(s) answered with another set's answer (first: set "
                f"{stale[0]['set']} got the answer of seed offset {int(stale[0]['stale_of'])})")
    verdicts: dict = {}
    for t in trials:
        if t.get("correct") is not None:
            verdicts.setdefault(t.get("set"), []).append(bool(t["correct"]))
    for k, v in sorted(verdicts.items(), key=lambda kv: str(kv[0])):
        right = v.index(False) if False in v else len(v)
        if right and len(v) - right >= 2 and not any(v[right:]):
            return (f"input set {k} answered right on its first {right} call(s) and wrong on "
                    f"the {len(v) - right} after: the answer changed with the calls before it")
    return None


def persistent_bytes(trace: dict) -> int | None:
    """Device memory in use after the timed calls beyond what was in use once the library had
    loaded (the least over those calls, so memory freed late does not count); None when not
    measured. The driver hands out memory in 2 MiB pages, so small values are noise."""
    return _held_after_calls(trace, "mem_after_load", "mem_used")


def kept_alloc_bytes(trace: dict) -> int | None:
    """Device memory the solution allocated itself (cudaMalloc and its kin, counted by the
    shim until freed) and still held after every timed call, beyond what it held once loaded;
    None when not counted (traces before the count, or more live allocations than it keeps)."""
    return _held_after_calls(trace, "live_after_load", "live_bytes")


def _held_after_calls(trace: dict, at_load: str, per_call: str) -> int | None:
    """The least of the timed calls' ``per_call`` figure less the trace's ``at_load`` one; None
    when either is missing or unknown (negative)."""
    base = trace.get(at_load)
    ends = [t[per_call] for t in _timed(trace) if t.get(per_call) is not None]
    if base is None or base < 0 or not ends or min(ends) < 0:
        return None
    return min(ends) - base


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} B"


def stack_reserve_bytes(trace: dict) -> int:
    """Device memory the driver keeps for local memory after a kernel with a stack frame larger
    than the default ran: the largest frame (``stack_bytes_max``, from ptxas) less the stack
    already reserved at load (``stack_limit``, 1 KiB by default) for every thread the device
    holds at once (``resident_threads``). On the H200 a single-thread kernel with a 16 KiB frame
    left 3962 MiB allocated after every call: (16384 - 1024) B x 132 SMs x 2048 threads, to
    within one 2 MiB page. 0 when a figure is missing (traces recorded before them)."""
    frame, threads = trace.get("stack_bytes_max"), trace.get("resident_threads")
    base = trace.get("stack_limit")
    if not frame or not threads or base is None or base < 0:
        return 0
    return max(0, int(frame) - int(base)) * int(threads)


def check_work_after_return(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """The call returns before its work is done: a caller reading the outputs then reads
    unfinished results.

    Three views, any one suffices: output elements sampled the moment an untimed call returned
    changed afterwards (the poison written before the call still there, or any other value:
    work on any stream, a host thread); device work still queued on the legacy or the calling
    thread's per-thread default stream at the return of at least ``after_return_pending`` of
    the timed calls, with the device busy over ``after_return_min_ms`` after it; or the device
    idle long after the return (``after_return_frac`` of the call). The last alone misses a
    call whose host part is long, such as page-locking the caller's arrays before queueing the
    work; streams the solution created are seen through the outputs and the time to idle only.
    """
    reasons = []
    checked = [t for t in trace.get("trials", []) if t.get("return_checked")]
    late = [t for t in checked if t.get("return_changed")]
    if late:
        worst = max(late, key=lambda t: t["return_changed"] / t["return_checked"])
        reasons.append(f"outputs unfinished at return in {len(late)} of {len(checked)} checked "
                       f"call(s): up to {worst['return_changed']} of {worst['return_checked']} "
                       "sampled output elements were written after the call returned")
    trials = _timed(trace)
    if trials:
        ret = float(np.median([t["return_ms"] for t in trials]))
        idle = float(np.median([t["inside_ms"] for t in trials]))
        pending = [t for t in trials if t.get("return_pending")]
        if idle - ret > th.after_return_min_ms and idle - ret > th.after_return_frac * idle:
            reasons.append(f"returned after {ret:.3f} ms, device idle after {idle:.3f} ms")
        elif pending and len(pending) >= th.after_return_pending * len(trials):
            tail = float(np.median([t["inside_ms"] - t["return_ms"] for t in pending]))
            if tail > th.after_return_min_ms:
                reasons.append(f"device work still queued at the return of {len(pending)} of "
                               f"{len(trials)} timed calls; device idle {tail:.3f} ms later")
    return "; ".join(reasons) or None


def check_load_time_work(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """Work done while the library loads (constructors), outside any timed call."""
    load = trace.get("load") or {}
    prof = load.get("profile") or {}
    reasons = []
    if prof.get("kernel_launches", 0) or prof.get("h2d_bytes", 0) or prof.get("memsets", 0):
        reasons.append(f"{prof.get('kernel_launches', 0)} kernel(s), {prof.get('h2d_bytes', 0)} "
                       f"H2D bytes, {prof.get('memsets', 0)} memset(s) at load")
    if load.get("mem_delta", 0) > th.load_mem_bytes:
        reasons.append(f"{load['mem_delta'] >> 20} MiB of device memory taken at load")
    if load.get("wall_ms", 0) > th.load_wall_ms:
        reasons.append(f"loading took {load['wall_ms']:.0f} ms")
    if load.get("cpu_ms", 0) > th.load_cpu_ms:
        reasons.append(f"loading used {load['cpu_ms']:.0f} ms of CPU")
    if load.get("threads_delta", 0) > 0:
        reasons.append(f"{load['threads_delta']} thread(s) started at load")
    return "; ".join(reasons) or None


def check_host_compute(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """Most of the call is host CPU time spent outside the CUDA API while the device idles, or
    the device plainly did not compute the answer.

    With CUPTI, two rules. (1) Host CPU time (all threads, from getrusage) minus the time inside
    CUDA runtime calls over ``host_cpu_frac`` of the call while the device (kernels, copies,
    memsets) is busy for under ``host_device_frac`` of it, unless the call staged its inputs to
    the device (``_staged``: a quarter of the input bytes or more uploaded, every output fetched,
    real launches: host threads packing the inputs, as in a pipelined histogram). (2) A
    signature that does not depend on the size: the inputs were not uploaded and the outputs not
    fetched (copies under ``host_moved_frac`` of their bytes), the device was busy for under
    ``host_device_frac`` of the call and no launch had more than ``token_threads`` threads (or
    there was none). At small sizes (1) misses a host loop shorter than the CUDA calls' fixed
    costs; (2) needs the launch sizes, which traces recorded before them lack unless no kernel
    ran. A solution that uploads its inputs, launches a real kernel, fetches its outputs and
    still computes the answer on the host escapes both. Without CUPTI, only a call faster than
    the transfer floor while the host is busy is flagged.
    """
    trials = _timed(trace)
    if not trials:
        return None
    call = call_ms(trace)
    if call <= 0:
        return None
    cpu = float(np.median([t["cpu_ms"] for t in trials]))
    profiled = [t["profile"] for t in trace.get("trials", []) if t.get("profile")]
    if profiled:
        busy = float(np.median([p["kernel_ms"] + p["h2d_ms"] + p["d2h_ms"] + p.get("memset_ms", 0)
                                for p in profiled]))
        api = float(np.median([p.get("api_ms", 0.0) for p in profiled]))
        token = _token_launches(profiled, th)
        moved = _moved_share(profiled, trace)
        if (cpu - api > th.host_cpu_frac * call and busy < th.host_device_frac * call
                and not _staged(profiled, moved, th)):
            return (f"host CPU {cpu:.3f} ms outside CUDA calls ({api:.3f} ms inside) of a "
                    f"{call:.3f} ms call; device busy {busy:.3f} ms (CUPTI)")
        if token and moved is not None and busy < th.host_device_frac * call:
            up, down = moved
            if up < th.host_moved_frac and down < th.host_moved_frac:
                return (f"{token}; {up:.0%} of the input bytes uploaded, {down:.0%} of the "
                        f"output bytes fetched; device busy {busy:.3g} ms of a {call:.3g} ms "
                        "call (CUPTI): the answer was computed on the host")
        return None
    if cpu < th.host_cpu_frac * call:
        return None
    floor = trace.get("floor_pinned_ms")
    if floor and call < 0.8 * floor:
        return (f"host CPU {cpu:.3f} ms of a {call:.3f} ms call, faster than the transfer floor "
                f"{floor:.3f} ms (no CUPTI)")
    return None


def _staged(profiled: list[dict], moved: tuple[float, float] | None, th: Thresholds) -> bool:
    """The device got the inputs (over ``host_staged_frac`` of their bytes), ran launches of
    more than ``token_threads`` threads and every output came back from it: host CPU time
    beside that is staging (host threads narrowing or packing the inputs into pinned buffers),
    which parallel host threads inflate past the call's wall time. False when a figure is
    missing."""
    if moved is None:
        return False
    up, down = moved
    threads = [p.get("kernel_threads_max") for p in profiled]
    if any(t is None for t in threads):
        return False
    return up >= th.host_staged_frac and down >= 1.0 - 1e-9 and max(threads) > th.token_threads


def _token_launches(profiled: list[dict], th: Thresholds) -> str | None:
    """How the profiled calls launched nothing but token kernels, or None (a real launch, or
    a launch whose size was not recorded)."""
    sizes = []
    for p in profiled:
        if not p.get("kernel_launches"):
            sizes.append(0)
        elif p.get("kernel_threads_max") is None:
            return None
        else:
            sizes.append(int(p["kernel_threads_max"]))
    if max(sizes) > th.token_threads:
        return None
    if max(sizes) == 0:
        return "no kernel launched"
    return f"no launch over {max(sizes)} thread(s)"


def _moved_share(profiled: list[dict], trace: dict) -> tuple[float, float] | None:
    """Median host-to-device bytes over the input bytes and device-to-host bytes over the
    output bytes of the profiled calls; None when the sizes are unknown."""
    b_in, b_out = trace.get("bytes_in"), trace.get("bytes_out")
    if not b_in or not b_out:
        return None
    up = float(np.median([p.get("h2d_bytes", 0) for p in profiled])) / b_in
    down = float(np.median([p.get("d2h_bytes", 0) for p in profiled])) / b_out
    return up, down


def check_input_mutation(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """A call changed an ``in`` array: seen right after the call (``inputs_changed``), or by the
    full comparison of every input set after the solution's calls (``inputs_final_changed``,
    resident inputs)."""
    bad = [t for t in _called(trace) if t.get("inputs_changed")]
    if bad:
        return f"inputs changed by {len(bad)} call(s)"
    late = trace.get("inputs_final_changed")
    if late:
        return (f"inputs of set(s) {', '.join(map(str, late))} changed, found by the full "
                "comparison after the calls")
    return None


def check_partial_output(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    bad = [t for t in _called(trace) if t.get("poison_left", 0) > 0]
    if bad:
        return f"poison left in {max(t['poison_left'] for t in bad)} output element(s)"
    return None


def check_nan_output(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    bad = [t for t in _called(trace) if t.get("nan_count", 0) > 0 and not t.get("correct")]
    if bad:
        return f"{max(t['nan_count'] for t in bad)} NaN output element(s) the reference lacks"
    return None


def check_precision(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    """Passes the task tolerance but fails its tight check."""
    checked = [t for t in _called(trace) if t.get("correct") and t.get("tight_ok") is not None]
    if checked and not any(t["tight_ok"] for t in checked):
        err = max((t.get("max_abs_err") or 0.0) for t in checked)
        return f"passes the task tolerance only (max abs error {err:.3g}); tight check fails"
    return None


def suspicious_accesses(shim_lines: list[str], own_pid: int | None = None,
                        own_dirs: tuple[str, ...] = ()) -> list[str]:
    """Shim log lines that are not the CUDA stack's own file or environment reads."""
    out = []
    for line in shim_lines:
        kind, _, what = line.partition("\t")
        if kind == "open":
            if own_pid is not None and what.startswith(f"/proc/{own_pid}/"):
                continue
            if any(what.startswith(d) for d in own_dirs):
                continue
            if not _ALLOWED_PATH.match(what):
                out.append(f"open {what}")
        elif kind == "env" and not _ALLOWED_ENV.match(what):
            out.append(f"getenv {what}")
    return sorted(set(out))


def check_filesystem_access(trace: dict, th: Thresholds = Thresholds()) -> str | None:
    hits = suspicious_accesses(trace.get("shim", []), trace.get("child_pid"))
    return "; ".join(hits[:8]) if hits else None


@dataclass(frozen=True)
class Flag:
    """One audit flag: its check over a trace, whether it means the timing cannot be trusted
    (``cheating``: the row leaves the statistics), and the catalog ID it shows directly
    (``label``: the tagger adds it as harness evidence)."""

    name: str
    check: Callable[[dict, Thresholds], str | None]
    cheating: bool
    label: str | None
    summary: str


# The one flag table. Adding a flag: a row here, a check function above, and its test trace in
# tests/test_harness.py (FLAG_TRACES); see DEVELOPERS.md.
FLAGS: tuple[Flag, ...] = (
    Flag("cross-call-state", check_cross_call_state, True, "AP-04",
         "answers that depend on earlier calls, fresh inputs much slower than repeated ones, "
         "or device memory kept between calls"),
    Flag("stale-output", check_stale_output, True, "AP-04",
         "an output equals another input set's answer"),
    Flag("work-after-return", check_work_after_return, True, None,
         "outputs written or device work still queued after the call returns"),
    Flag("load-time-work", check_load_time_work, True, None,
         "kernels, copies, memory or threads started while the library loads"),
    Flag("host-compute", check_host_compute, True, "AP-05",
         "most of the call is host CPU time outside CUDA while the device idles, or no "
         "upload, no fetch and only token kernels"),
    Flag("input-mutation", check_input_mutation, True, None,
         "a call changed an input array"),
    Flag("partial-output", check_partial_output, True, None,
         "output elements left holding the poison"),
    Flag("filesystem-access", check_filesystem_access, True, None,
         "files or environment variables beyond the CUDA stack's own"),
    Flag("precision", check_precision, False, None,
         "passes the task tolerance, fails its tight check (a warning, not a loophole)"),
    Flag("timer-tamper", check_timer_tamper, True, None,
         "inside timers disagree with the outside clock, or timing code changed at load"),
    Flag("nan-output", check_nan_output, False, None,
         "NaN outputs the reference lacks (a wrong answer, not a timing loophole)"),
)
FLAG_NAMES: tuple[str, ...] = tuple(f.name for f in FLAGS)
CHEATING_FLAGS: frozenset[str] = frozenset(f.name for f in FLAGS if f.cheating)
FLAG_LABELS: dict[str, str] = {f.name: f.label for f in FLAGS if f.label}
CHECKS = {f.name: f.check for f in FLAGS}


def apply_not_applicable(flags: dict[str, str], trace: dict) -> dict[str, str]:
    """``flags`` without those the trace's ``not_applicable`` says cannot apply (an
    adapter-driven AccelEval task, say); their reasons stay in the trace and on the row."""
    na = trace.get("not_applicable") or {}
    return {k: v for k, v in flags.items() if (na.get(k) or {}).get("applies") != "no"}


def audit(trace: dict, th: Thresholds = Thresholds()) -> dict[str, str]:
    """Every flag the trace raises, mapped to its evidence.

    Examples
    --------
    >>> audit({"trials": [{"phase": "timed", "set": 0, "outside_ms": 1.0, "inside_ms": 0.98,
    ...                    "return_ms": 0.97, "event_ms": 0.97, "cpu_ms": 0.1,
    ...                    "inputs_changed": True}], "noop_overhead_ms": [0.03]})
    {'input-mutation': 'inputs changed by 1 call(s)'}
    """
    flags = {}
    for f in FLAGS:
        try:
            res = f.check(trace, th)
        except (KeyError, TypeError, ValueError) as exc:
            res = None
            flags.setdefault("_audit_errors", "")
            flags["_audit_errors"] += f"{f.name}: {exc!r}; "
        if res:
            flags[f.name] = res
    return apply_not_applicable(flags, trace)
