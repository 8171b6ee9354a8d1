"""The code that runs inside the child process, beside the untrusted solution.

Started by :class:`strategylens.harness.sandbox.Child` as ``python -c "... child_main()"``. It
talks JSON lines over the two fds named in ``SL_PROTO_FDS``, loads ``libslchild.so`` (device
set-up, L2 flush, inside timers, Landlock), then the solution, and calls it on request with
pointers into the shared input/output buffers. It imports no numpy: a child starts in tens of
milliseconds plus the CUDA context.

Protocol (parent -> child, one JSON object per line):

``setup``
    the first line: ``slchild``, ``device``, ``cupti``, ``bandwidth_bytes`` (a probe child
    measures copy bandwidths and stops), ``so_path``, ``landlock`` with ``ro_paths`` /
    ``rw_paths``, and ``layouts``: key -> ``{memfd, mem_size, params}``, each param with
    ``offsets`` (one per input slot; ``out`` arrays have one) and ``prefault`` (map every page
    at once), and ``layout``, the first key.
``{"op": "layout", "key": k}``
    switch to another shared buffer (another size of the same solution); reply ``ready``.
``{"op": "prep", "scalars": {...}, "slot": s, "check_return": n}``
    flush L2; the next call reads input slot ``s``; with ``check_return`` (n > 1) the next call
    copies n elements of every output (all of a smaller one) the moment it returns; reply
    ``ready``.
``{"op": "go" | "noop" | "sleep", "profile": bool, "ms": D}``
    one timed call (the solution, nothing, or a kernel-timed sleep of D ms); replies ``done``
    (timed) then ``stats``: CPU time, CUDA events, ``return_pending`` (device work still queued
    on the legacy or this thread's per-thread default stream when the call returned) and, for
    a checked call, ``return_checked`` / ``return_changed`` (sampled output elements, and
    those that changed after the return).
``{"op": "exit"}``
    reply ``bye`` and end.

An AccelEval task (``setup["adapter"]``) is driven through its adapter instead of ``sl_entry``:

``{"op": "adapter-setup", "key": k, "sets": [...]}``
    for every input set of layout k: a ``TaskData`` whose tensors point into the set's slot of
    the shared buffer, ``task_setup`` with allocation tracking on (``sl_ae_track``), and the
    buffers it left behind; a set's ``plan`` entries ``[index, param, bytes]`` name the buffers
    to poison before each call and copy into ``param``'s region after it (used only when that
    buffer exists, was zero and has that size). Reply ``adapter`` with what each set got.
``prep`` / ``go``
    as above, with ``task_run`` on the context of the slot; the planned buffers are poisoned at
    ``prep`` and copied out after the timed window.
``{"op": "text", "slot": s, "path": p}``
    ``task_write_output`` of slot s's context into ``p`` (relative to the child's folder);
    reply ``text``.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import resource
import time
from typing import Any

from strategylens.dtypes import DTYPES

TIMER_SYMBOLS = ("clock_gettime", "cudaEventElapsedTime", "cuEventElapsedTime", "nanosleep",
                 "clock_nanosleep")


def _rusage_ms() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)  # a syscall: a patched clock cannot touch it
    return (ru.ru_utime + ru.ru_stime) * 1e3


def _threads() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


class _Cupti:
    """CUPTI activity collection through cupti-python; ``available`` is False without it."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.error = ""
        try:
            from cupti import cupti  # noqa: PLC0415
            self.cupti = cupti
            kinds = cupti.ActivityKind
            self.kinds = [kinds.CONCURRENT_KERNEL, kinds.MEMCPY, kinds.MEMSET,
                          kinds.SYNCHRONIZATION, kinds.MEMORY2, kinds.RUNTIME]
            cupti.activity_register_callbacks(self._requested, self._completed)
            self.available = True
        except Exception as exc:  # noqa: BLE001 - any failure means "no profile"
            self.available, self.error = False, f"{type(exc).__name__}: {exc}"

    def _requested(self):
        return 8 * 1024 * 1024, 0

    def _completed(self, activities):
        c = self.cupti
        for a in activities:
            k = a.kind
            if k in (c.ActivityKind.CONCURRENT_KERNEL, c.ActivityKind.KERNEL):
                self.records.append({"kind": "kernel", "ns": a.end - a.start,
                                     "threads": _launch_threads(a)})
            elif k == c.ActivityKind.MEMCPY:
                ck = c.ActivityMemcpyKind(a.copy_kind).name
                self.records.append({"kind": "memcpy", "copy": ck, "bytes": int(a.bytes),
                                     "ns": a.end - a.start})
            elif k == c.ActivityKind.MEMSET:
                self.records.append({"kind": "memset", "bytes": int(a.bytes), "ns": a.end - a.start})
            elif k == c.ActivityKind.RUNTIME:
                self.records.append({"kind": "api", "ns": a.end - a.start})
            elif k == c.ActivityKind.SYNCHRONIZATION:
                self.records.append({"kind": "sync", "ns": a.end - a.start})
            elif k == c.ActivityKind.MEMORY2:
                op = c.ActivityMemoryOperationType(a.memory_operation_type).name
                self.records.append({"kind": "alloc" if op == "ALLOCATION" else "free",
                                     "bytes": int(a.bytes)})

    def start(self) -> None:
        if not self.available:
            return
        self.records = []
        try:
            for k in self.kinds:
                self.cupti.activity_enable(k)
        except Exception as exc:  # noqa: BLE001
            self.available, self.error = False, f"activity_enable: {exc}"

    def stop(self) -> dict | None:
        if not self.available:
            return None
        try:
            self.cupti.activity_flush_all(1)
            for k in self.kinds:
                self.cupti.activity_disable(k)
        except Exception as exc:  # noqa: BLE001
            self.available, self.error = False, f"activity_flush: {exc}"
            return None
        return summarize_activity(self.records)


def _launch_threads(a) -> int | None:
    """Threads of one kernel launch (grid x block) from its CUPTI record; None if unreadable."""
    try:
        return (int(a.grid_x) * int(a.grid_y) * int(a.grid_z)
                * int(a.block_x) * int(a.block_y) * int(a.block_z))
    except (AttributeError, TypeError, ValueError):
        return None


def summarize_activity(records: list[dict]) -> dict:
    """Totals over CUPTI activity records (the per-call profile columns).

    ``kernel_threads_max`` is the largest launch (grid x block threads; 0 without a launch,
    None when a launch's size was unreadable)."""
    s = {"kernel_launches": 0, "kernel_ms": 0.0, "kernel_threads_max": 0, "h2d_bytes": 0,
         "h2d_ms": 0.0, "d2h_bytes": 0, "d2h_ms": 0.0, "d2d_bytes": 0, "memsets": 0,
         "memset_ms": 0.0, "allocs": 0, "alloc_bytes": 0, "frees": 0, "syncs": 0,
         "api_calls": 0, "api_ms": 0.0}
    for r in records:
        k = r["kind"]
        if k == "kernel":
            s["kernel_launches"] += 1
            s["kernel_ms"] += r["ns"] / 1e6
            threads = r.get("threads")
            if threads is None or s["kernel_threads_max"] is None:
                s["kernel_threads_max"] = None
            else:
                s["kernel_threads_max"] = max(s["kernel_threads_max"], threads)
        elif k == "memcpy":
            key = {"HTOD": "h2d", "DTOH": "d2h"}.get(r["copy"], "d2d" if r["copy"] == "DTOD" else None)
            if key in ("h2d", "d2h"):
                s[f"{key}_bytes"] += r["bytes"]
                s[f"{key}_ms"] += r["ns"] / 1e6
            elif key == "d2d":
                s["d2d_bytes"] += r["bytes"]
        elif k == "memset":
            s["memsets"] += 1
            s["memset_ms"] += r["ns"] / 1e6
        elif k == "api":
            s["api_calls"] += 1
            s["api_ms"] += r["ns"] / 1e6
        elif k == "sync":
            s["syncs"] += 1
        elif k == "alloc":
            s["allocs"] += 1
            s["alloc_bytes"] += r["bytes"]
        elif k == "free":
            s["frees"] += 1
    return s


def _prefault(shm: mmap.mmap) -> None:
    """Map every page of a buffer into this process now, so that the first call on an input
    set that stayed resident (a fresh set of the cross-call probe) does not pay the page faults
    that the calls before it did not."""
    try:
        shm.madvise(mmap.MADV_POPULATE_READ)  # Linux 5.14+, Python 3.12+
    except (AttributeError, OSError, ValueError):
        bytes(memoryview(shm)[::mmap.PAGESIZE])  # read one byte of every page


class _Buffers:
    """The shared input/output buffers of every layout the parent passed, mapped on first use.

    ``args(slot)`` gives the pointer argument of every array parameter for an input slot (None
    in the scalars' places)."""

    def __init__(self, layouts: dict) -> None:
        self.layouts = layouts
        self.maps: dict[str, tuple[mmap.mmap, int]] = {}
        self.key: str | None = None

    def use(self, key: str) -> None:
        if key not in self.maps:
            spec = self.layouts[key]
            shm = mmap.mmap(os.dup(int(spec["memfd"])), int(spec["mem_size"]))
            if spec.get("prefault"):
                _prefault(shm)
            self.maps[key] = (shm, ctypes.addressof(ctypes.c_char.from_buffer(shm)))
        self.key = key

    @property
    def params(self) -> list[dict]:
        return self.layouts[self.key]["params"]

    def pointer(self, name: str, slot: int) -> int:
        """Address of array ``name``'s region for ``slot`` in the current layout."""
        base = self.maps[self.key][1]
        p = next(q for q in self.params if q["name"] == name)
        offsets = p["offsets"]
        return base + offsets[slot if slot < len(offsets) else 0]
    def outputs(self) -> list[tuple[int, int, int]]:
        """(address, bytes, element size) of every ``out`` and ``inout`` array."""
        base = self.maps[self.key][1]
        return [(base + p["offsets"][0], int(p["nbytes"]), ctypes.sizeof(DTYPES[p["dtype"]].ctype))
                for p in self.params
                if p["kind"] == "array" and p.get("direction") in ("out", "inout")]

    def args(self, slot: int) -> list:
        base = self.maps[self.key][1]
        out = []
        for p in self.params:
            if p["kind"] != "array":
                out.append(None)
                continue
            offsets = p["offsets"]
            out.append(ctypes.c_void_p(base + offsets[slot if slot < len(offsets) else 0]))
        return out


class _Tensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("data", ctypes.c_void_p),
                ("count", ctypes.c_int64)]


class _Param(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_int64)]


class _TaskData(ctypes.Structure):  # harness/acceleval/acceleval_io.h
    _fields_ = [("num_inputs", ctypes.c_int), ("inputs", ctypes.POINTER(_Tensor)),
                ("num_params", ctypes.c_int), ("params", ctypes.POINTER(_Param))]


class _Adapter:
    """The contexts task_setup made for each input set of each layout, and their buffers."""

    def __init__(self, sol) -> None:
        self.sol = sol
        sol.task_run.restype = sol.task_write_output.restype = None
        sol.task_setup.restype = ctypes.c_void_p
        sol.task_setup.argtypes = [ctypes.POINTER(_TaskData), ctypes.c_char_p]
        sol.task_run.argtypes = [ctypes.c_void_p]
        sol.task_write_output.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        sol.sl_ae_get.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_size_t)]
        self.sets: dict[str, list[dict]] = {}
        self.keep: list = []  # TaskData and its strings live as long as the contexts

    def setup(self, key: str, specs: list[dict], buffers: _Buffers) -> list[dict]:
        out = []
        self.sets[key] = []
        for slot, spec in enumerate(specs):
            tensors = (_Tensor * max(1, len(spec["tensors"])))()
            for i, (name, code) in enumerate(spec["tensors"]):
                tensors[i] = _Tensor(name.encode(), int(code), buffers.pointer(name, slot),
                                     int(spec["counts"][i]))
            params = (_Param * max(1, len(spec["params"])))()
            for i, (k, v) in enumerate(spec["params"]):
                params[i] = _Param(k.encode(), int(v))
            td = _TaskData(len(spec["tensors"]), tensors, len(spec["params"]), params)
            folder = os.path.abspath(spec["dir"]).encode()
            self.keep += [tensors, params, td, folder]
            t0 = time.monotonic_ns()
            self.sol.sl_ae_track(1)
            ctx = self.sol.task_setup(ctypes.byref(td), folder)
            self.sol.sl_ae_track(0)
            setup_ms = (time.monotonic_ns() - t0) / 1e6
            found = []
            for i in range(self.sol.sl_ae_count()):
                ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
                self.sol.sl_ae_get(i, ctypes.byref(ptr), ctypes.byref(n))
                if ptr.value != ctx:
                    found.append((ptr.value, n.value))
            # a buffer task_setup left all zero: an output not yet written
            zero = [(p, n) for p, n in found if ctypes.string_at(p, n).count(0) == n]
            plan = []
            for index, param, nbytes in spec.get("plan", []):
                if index < len(zero) and zero[index][1] == nbytes:
                    plan.append((zero[index][0], nbytes, param))
            self.sets[key].append({"ctx": ctx, "plan": plan})
            out.append({"ok": bool(ctx), "setup_ms": setup_ms, "buffers": [n for _, n in zero],
                        "other_allocations": len(found) - len(zero),
                        "planned": [param for _, _, param in plan]})
        return out

    def poison(self, key: str, slot: int) -> None:
        for ptr, n, _ in self.sets[key][slot]["plan"]:
            ctypes.memset(ptr, 0xA5, n)

    def copy_out(self, key: str, slot: int, buffers: _Buffers) -> None:
        for ptr, n, param in self.sets[key][slot]["plan"]:
            ctypes.memmove(buffers.pointer(param, slot), ptr, n)

    def ctx(self, key: str, slot: int) -> int:
        return self.sets[key][slot]["ctx"]


def child_main() -> None:
    """Entry point of the child process. Talks JSON lines over the fds in ``SL_PROTO_FDS``."""
    rfd, wfd = (int(x) for x in os.environ["SL_PROTO_FDS"].split(","))
    rd = os.fdopen(rfd, "r", buffering=1)
    wr = os.fdopen(wfd, "w", buffering=1)

    def reply(**kw) -> None:
        wr.write(json.dumps(kw) + "\n")
        wr.flush()

    setup = json.loads(rd.readline())
    if setup.get("cpus"):  # before CUDA starts its threads, which inherit the set
        os.sched_setaffinity(0, setup["cpus"])
    lib = ctypes.CDLL(setup["slchild"], mode=ctypes.RTLD_GLOBAL)
    lib.sl_code_fingerprint.restype = ctypes.c_uint64
    lib.sl_bandwidth.restype = ctypes.c_double
    lib.sl_event_ms.restype = ctypes.c_double
    lib.sl_error_string.restype = ctypes.c_char_p
    lib.sl_returned.restype = ctypes.c_int
    lib.sl_stack_limit.restype = ctypes.c_long
    lib.sl_snapshot_plan.restype = ctypes.c_long
    lib.sl_snapshot_plan.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                                     ctypes.c_size_t, ctypes.c_uint64]
    lib.sl_snapshot_changed.restype = ctypes.c_long

    def fingerprints() -> dict:
        out = {}
        for sym in TIMER_SYMBOLS:
            n = ctypes.c_int(0)
            h = lib.sl_code_fingerprint(sym.encode(), ctypes.byref(n))
            out[sym] = f"{h:016x}/{n.value}"
        return out

    def mem_used() -> int:
        used, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        lib.sl_mem_used(ctypes.byref(used), ctypes.byref(total))
        return used.value

    l2 = ctypes.c_size_t(0)
    err = lib.sl_init(int(setup.get("device", 0)), ctypes.byref(l2))
    if err:
        reply(op="error", reason="cuda-init", detail=lib.sl_error_string(err).decode())
        return
    prof = _Cupti() if setup.get("cupti", True) else None
    resident = lib.sl_resident_threads(int(setup.get("device", 0)))
    info: dict[str, Any] = {"l2_bytes": l2.value, "cupti": bool(prof and prof.available),
                            "resident_threads": resident, "stack_limit": lib.sl_stack_limit(),
                            "cupti_error": prof.error if prof else "disabled",
                            "child_cpus": sorted(os.sched_getaffinity(0))}
    if setup.get("bandwidth_bytes"):
        nb = int(setup["bandwidth_bytes"])
        info["bandwidth"] = {f"{'pinned' if p else 'pageable'}_{'h2d' if d == 0 else 'd2h'}":
                             lib.sl_bandwidth(p, d, ctypes.c_size_t(nb), 5)
                             for p in (0, 1) for d in (0, 1)}
    so_path = setup.get("so_path")
    if not so_path:  # a probe child: device facts only
        reply(op="loaded", **info)
        rd.readline()
        return

    buffers = _Buffers(setup["layouts"])
    buffers.use(setup["layout"])

    # Before the solution is loaded: fingerprints, memory, threads, CPU time; then sandbox.
    fp_before = fingerprints()
    if prof:
        prof.start()
    mem0, thr0, cpu0 = mem_used(), _threads(), _rusage_ms()
    sandbox = "off"
    if setup.get("landlock"):
        ro = [s.encode() for s in setup["ro_paths"]]
        rw = [s.encode() for s in setup["rw_paths"]]
        ro_arr = (ctypes.c_char_p * len(ro))(*ro)
        rw_arr = (ctypes.c_char_p * len(rw))(*rw)
        abi = lib.sl_landlock(ro_arr, len(ro), rw_arr, len(rw))
        sandbox = f"landlock-abi{abi}" if abi > 0 else f"none (landlock errno {-abi})"
    # The shim logs file and environment reads only while armed: during the load and during
    # each call of the solution, never while the harness's own Python runs.
    arm = getattr(ctypes.CDLL(None), "sl_shim_arm", None) or (lambda on: None)
    arm(1)
    t0 = time.monotonic_ns()
    adapter = None
    try:
        sol = ctypes.CDLL(so_path)
        entry = sol.task_run if setup.get("adapter") else sol.sl_entry
        if setup.get("adapter"):
            adapter = _Adapter(sol)
    except (OSError, AttributeError) as exc:
        arm(0)
        reply(op="error", reason="load-failed", detail=str(exc))
        return
    load_ns = time.monotonic_ns() - t0
    lib.sl_end((ctypes.c_double * 3)())  # waits for any device work started at load
    arm(0)
    load = {"wall_ms": load_ns / 1e6, "cpu_ms": _rusage_ms() - cpu0,
            "mem_delta": mem_used() - mem0, "threads_delta": _threads() - thr0,
            "profile": prof.stop() if prof else None}
    if adapter is None:
        entry.argtypes = [ctypes.c_void_p if p["kind"] == "array" else DTYPES[p["dtype"]].ctype
                          for p in buffers.params]
        entry.restype = None
    libc = ctypes.CDLL(None)
    pin_ns = getattr(libc, "sl_shim_pin_ns", None)  # page-locking time (the shim's count)
    live_bytes = getattr(libc, "sl_shim_live_bytes", None)  # the solution's live allocations
    for f in (pin_ns, live_bytes):
        if f is not None:
            f.restype = ctypes.c_longlong
    owned = {"live_bytes": live_bytes()} if live_bytes is not None else {}
    reply(op="loaded", sandbox=sandbox, fp_before=fp_before, fp_after=fingerprints(), load=load,
          mem_used=mem_used(), threads=_threads(), **owned, **info)

    args: list = []
    out = (ctypes.c_double * 3)()
    planned = 0  # output elements the next call checks at its return

    def call_solution() -> None:
        arm(1)
        entry(*args)
        arm(0)


    class _Timespec(ctypes.Structure):
        _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

    def kernel_sleep(ms: float) -> None:
        """Relative sleep timed by the kernel: no user-space clock is read."""
        ts = _Timespec(int(ms // 1000), int((ms % 1000) * 1e6))
        libc.nanosleep(ctypes.byref(ts), None)

    for line in rd:
        msg = json.loads(line)
        op = msg["op"]
        if op == "prep":  # the arguments are built here, outside the timed window
            slot = int(msg.get("slot", 0))
            if adapter is not None:
                if buffers.key in adapter.sets and slot < len(adapter.sets[buffers.key]):
                    adapter.poison(buffers.key, slot)
                    args = [ctypes.c_void_p(adapter.ctx(buffers.key, slot))]
            else:
                scalars = msg.get("scalars", {})
                args = [a if a is not None or p["name"] not in scalars
                        else DTYPES[p["dtype"]].ctype(scalars[p["name"]])
                        for a, p in zip(buffers.args(slot), buffers.params, strict=True)]
            e = lib.sl_flush_l2()
            if planned:  # a plan no call used
                lib.sl_snapshot_changed(ctypes.byref(ctypes.c_long(0)))
            planned = 0
            samples = int(msg.get("check_return") or 0)
            # positions drawn now, outside the call, from a seed it cannot know; not for an
            # adapter-driven call, whose outputs live in the adapter's buffers, not the layout
            # (adapter.not_applicable names the check)
            if samples > 1 and adapter is None:
                for addr, nbytes, elem in buffers.outputs():
                    seed = int.from_bytes(os.urandom(8), "little")
                    planned += max(0, lib.sl_snapshot_plan(addr, nbytes, elem, samples, seed))
            reply(op="ready", **({"cuda_error": lib.sl_error_string(e).decode()} if e else {}))
        elif op in ("go", "noop", "sleep"):  # one code path, so calibration matches a call
            profile = bool(msg.get("profile") and prof)
            if profile:
                prof.start()
            if op == "go":
                call = call_solution
            elif op == "sleep":
                call = (lambda ms=float(msg["ms"]): kernel_sleep(ms))
            else:
                call = (lambda: None)
            c0 = _rusage_ms()
            p0 = pin_ns() if pin_ns is not None else 0
            lib.sl_begin()
            call()
            pending = lib.sl_returned()
            e = lib.sl_end(out)
            cpu_ms = _rusage_ms() - c0
            # the timed reply leaves at once; everything else follows in a second message
            reply(op="done", inside_return_ms=out[0] / 1e6, inside_ms=out[1] / 1e6)
            if op == "go" and adapter is not None and args:
                adapter.copy_out(buffers.key, slot, buffers)
            res = {"event_ms": lib.sl_event_ms(), "cpu_ms": cpu_ms,
                   "return_pending": bool(pending)}
            if pin_ns is not None:
                res["pin_ms"] = (pin_ns() - p0) / 1e6
            if planned:
                checked = ctypes.c_long(0)
                res["return_changed"] = lib.sl_snapshot_changed(ctypes.byref(checked))
                res["return_checked"] = checked.value
                planned = 0
            if e:
                res["cuda_error"] = lib.sl_error_string(e).decode()
            if profile:
                res["profile"] = prof.stop()
            res.update(mem_used=mem_used(), threads=_threads())
            if live_bytes is not None:
                res["live_bytes"] = live_bytes()
            reply(op="stats", **res)
            if e:
                return
        elif op == "layout":
            buffers.use(msg["key"])
            reply(op="ready", mem_used=mem_used())
        elif op == "adapter-setup":
            reply(op="adapter", sets=adapter.setup(msg["key"], msg["sets"], buffers),
                  mem_used=mem_used())
        elif op == "text":
            adapter.sol.task_write_output(adapter.ctx(buffers.key, int(msg["slot"])),
                                          msg["path"].encode())
            reply(op="text", path=msg["path"])
        elif op == "exit":
            reply(op="bye")
            return
