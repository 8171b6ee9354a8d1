"""GPU harness: build solutions, run each in an isolated child process, time, audit, profile.

Design (see analyses/h200/README.md for the measured numbers behind the defaults):

* **Build.** Each solution is compiled by nvcc into a shared library together with a small
  wrapper generated from the task signature (``extern "C" sl_entry(...)`` forwarding to
  ``solution_compute``), so C and C++ linkage both work. Builds are cached by the hash of the
  source, the wrapper and the flags, run in parallel, and a compile error is a result.
* **Isolation.** Each solution runs in its own Python child (``child_main``) in an empty
  temporary directory with a minimal environment. Inputs and outputs live in one ``memfd``
  shared with the parent; the parent copies one input set into it and poisons the outputs before
  every call, and keeps every expected output to itself. Requests and replies travel as JSON lines
  over a dedicated pipe pair, so a solution printing to stdout cannot corrupt the protocol (its
  stdout is kept and reported). The parent enforces a wall-clock limit per call and per solution,
  and a memory limit by watching the child's RSS (RLIMIT_AS breaks CUDA's address-space
  reservations). File access is logged by an LD_PRELOAD shim and restricted by Landlock where the
  kernel supports it.
* **Timing.** The parent times every call from outside (request sent -> reply after the child
  synchronised the device); the child times it inside (host clock, CUDA events). The inside
  figure is used only when it agrees with the outside one within a bound measured at start-up
  with no-op calls; otherwise ``timer-tamper`` is raised and the outside figure is used.
* **Audit.** The decisions are pure functions in ``strategylens.audit`` over the trace this
  module records, so they are tested on the CPU.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import mmap
import os
import platform
import random
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from strategylens import __version__
from strategylens.provenance import cpu_model, git_commit, tool_sha

REPO_ROOT = Path(__file__).resolve().parents[1]
HARNESS_SRC = REPO_ROOT / "harness"
CACHE_ROOT = Path(os.environ.get("STRATEGYLENS_CACHE", Path.home() / ".cache" / "strategylens"))
CUDA_HOME = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))

POISON_BYTE = 0xA5

# header -> library; curand_kernel.h is device-side and header-only, so it links nothing.
LIBRARY_HEADERS = {
    "cublas_v2.h": "cublas", "cublas.h": "cublas", "cublasLt.h": "cublasLt",
    "cusparse.h": "cusparse", "cusparse_v2.h": "cusparse",
    "cusolverDn.h": "cusolver", "cusolverSp.h": "cusolver", "cusolverRf.h": "cusolver",
    "cufft.h": "cufft", "cufftXt.h": "cufft", "curand.h": "curand",
}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)

CTYPES = {"i8": ctypes.c_int8, "u8": ctypes.c_uint8, "i32": ctypes.c_int32,
          "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "f32": ctypes.c_float,
          "f64": ctypes.c_double}
CDECL = {"i8": "char", "u8": "unsigned char", "i32": "int", "u32": "unsigned int",
         "i64": "long long", "f32": "float", "f64": "double"}
NPTYPES = {"i8": np.int8, "u8": np.uint8, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
           "f32": np.float32, "f64": np.float64}


# --------------------------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------------------------

def _run(cmd: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def detect_arch(default: str = "sm_90") -> str:
    """Compute capability of GPU 0 as ``sm_XY``, or ``default`` when no GPU answers.

    ``STRATEGYLENS_ARCH`` overrides both.
    """
    if os.environ.get("STRATEGYLENS_ARCH"):
        return os.environ["STRATEGYLENS_ARCH"]
    try:
        res = _run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], 20)
        cap = res.stdout.strip().splitlines()[0].strip()
        major, minor = cap.split(".")
        return f"sm_{int(major)}{int(minor)}"
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return default


def nvcc_version() -> str:
    try:
        out = _run([str(_nvcc()), "--version"]).stdout
        m = re.search(r"release [\d.]+, (V[\d.]+)", out)
        return m.group(1) if m else out.strip().splitlines()[-1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def _nvcc() -> Path:
    found = shutil.which("nvcc")
    return Path(found) if found else CUDA_HOME / "bin" / "nvcc"


def _library_dirs() -> list[Path]:
    dirs = [CUDA_HOME / "lib64", CUDA_HOME / "lib64" / "stubs"]
    for base in sys.path:
        nv = Path(base) / "nvidia"
        if nv.is_dir():
            dirs += sorted(p for p in nv.glob("*/lib") if p.is_dir())
    return [d for d in dirs if d.is_dir()]


def _find_library(name: str) -> tuple[str, Path] | None:
    """(-l argument, directory) for lib<name>.so, preferring an unversioned name."""
    for d in _library_dirs():
        if (d / f"lib{name}.so").exists():
            return f"-l{name}", d
        versioned = sorted(d.glob(f"lib{name}.so.*"))
        if versioned:
            return f"-l:{versioned[0].name}", d
    return None


def libraries_used(source: str) -> list[str]:
    """CUDA libraries a source needs linked, from its ``#include`` lines."""
    libs = {LIBRARY_HEADERS[Path(h).name] for h in _INCLUDE.findall(source)
            if Path(h).name in LIBRARY_HEADERS}
    if "cublasLt" in libs:
        libs.add("cublas")
    return sorted(libs)


def wrapper_source(params: list) -> str:
    """C++ forwarding wrapper generated from a task signature.

    ``params`` are the task's parameters in signature order (objects or dicts with ``name``,
    ``kind`` (array|scalar) and ``dtype``). Array parameters are passed without ``const`` so
    the wrapper compiles whichever constness the solution declares.
    """
    decls, names = [], []
    for p in params:
        p = _pget(p)
        ctype = CDECL[p["dtype"]]
        decls.append(f"{ctype}* {p['name']}" if p["kind"] == "array" else f"{ctype} {p['name']}")
        names.append(p["name"])
    return (f'extern "C" void sl_entry({", ".join(decls)}) {{\n'
            f"    solution_compute({', '.join(names)});\n}}\n")


def _pget(p: Any) -> dict:
    if isinstance(p, dict):
        return p
    return {k: getattr(p, k, None) for k in ("name", "kind", "dtype", "direction", "length")}


_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")


def parse_ptxas(text: str) -> list[dict]:
    """Per-kernel resources from ``-Xptxas -v`` output.

    Returns
    -------
    list of dict
        ``kernel, arch, registers, smem_bytes, stack_bytes, spill_stores, spill_loads, barriers``
        in the order ptxas reported them.
    """
    kernels: list[dict] = []
    current: dict | None = None
    for line in text.splitlines():
        m = _PTXAS_ENTRY.search(line)
        if m:
            current = {"kernel": m.group(1), "arch": m.group(2), "registers": 0,
                       "smem_bytes": 0, "stack_bytes": 0, "spill_stores": 0, "spill_loads": 0,
                       "barriers": 0}
            kernels.append(current)
            continue
        if current is None:
            continue
        m = _PTXAS_FRAME.search(line)
        if m:
            current.update(stack_bytes=int(m.group(1)), spill_stores=int(m.group(2)),
                           spill_loads=int(m.group(3)))
            continue
        m = _PTXAS_USED.search(line)
        if m:
            current.update(registers=int(m.group(1)), barriers=int(m.group(2) or 0),
                           smem_bytes=int(m.group(3) or 0))
    return kernels


@dataclass
class BuildResult:
    """Outcome of compiling one solution."""

    source: str
    compiled: bool
    so_path: str | None
    arch: str
    flags: list[str]
    libraries: list[str]
    kernels: list[dict] = field(default_factory=list)
    error: str = ""
    build_s: float = 0.0
    cache_hit: bool = False
    source_sha256: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def build_solution(source: Path, params: list, arch: str | None = None,
                   cache_dir: Path | None = None, extra_flags: list[str] | None = None,
                   timeout_s: float = 300.0) -> BuildResult:
    """Compile one ``.cu`` solution with its signature wrapper into a shared library.

    Parameters
    ----------
    source : Path
        The solution file.
    params : list
        Task parameters in signature order (for the wrapper).
    arch : str, optional
        ``sm_XY``; default from the GPU found now (``detect_arch``).
    cache_dir : Path, optional
        Build cache root; default ``~/.cache/strategylens/builds``.

    Returns
    -------
    BuildResult
        ``compiled`` is False with the compiler's message in ``error`` when nvcc fails.
    """
    source = Path(source)
    arch = arch or detect_arch()
    cache_dir = Path(cache_dir or CACHE_ROOT / "builds")
    try:
        text = source.read_text(errors="replace")
    except OSError as exc:
        return BuildResult(str(source), False, None, arch, [], [], error=f"{source}: {exc}")
    libs = libraries_used(text)
    flags = ["-O3", "-std=c++17", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC",
             "-cudart", "shared", "-Xptxas", "-v", *(extra_flags or [])]
    link: list[str] = []
    missing = []
    for lib in libs:
        found = _find_library(lib)
        if not found:
            missing.append(lib)
            continue
        arg, d = found
        link += [f"-L{d}", arg, "-Xlinker", f"-rpath={d}"]
        inc = d.parent / "include"
        if inc.is_dir() and inc != CUDA_HOME / "include":
            link.insert(0, f"-I{inc}")
    wrapper = wrapper_source(params)
    sha = hashlib.sha256(text.encode() + wrapper.encode()).hexdigest()
    key = hashlib.sha256(json.dumps([sha, flags, link, nvcc_version()]).encode()).hexdigest()[:24]
    out_dir = cache_dir / key
    meta_path = out_dir / "build.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        meta.update(source=str(source), cache_hit=True)
        return BuildResult(**meta)
    if missing:
        return BuildResult(str(source), False, None, arch, flags, libs,
                           error=f"{source}: library not found for linking: {', '.join(missing)}",
                           source_sha256=sha)
    out_dir.mkdir(parents=True, exist_ok=True)
    unit = out_dir / "unit.cu"
    unit.write_text(f'#include "{source.resolve()}"\n\n{wrapper}')
    so = out_dir / "solution.so"
    cmd = [str(_nvcc()), *flags, "-o", str(so), str(unit), *link]
    t0 = time.perf_counter()
    try:
        res = _run(cmd, timeout_s)
        ok, log = res.returncode == 0, res.stdout + res.stderr
    except subprocess.TimeoutExpired:
        ok, log = False, f"nvcc timed out after {timeout_s:.0f} s"
    except OSError as exc:
        ok, log = False, f"nvcc could not start: {exc}"
    build_s = time.perf_counter() - t0
    result = BuildResult(str(source), ok, str(so) if ok else None, arch, flags + link, libs,
                         kernels=parse_ptxas(log) if ok else [],
                         error="" if ok else log.strip()[-4000:], build_s=round(build_s, 3),
                         source_sha256=sha)
    if ok:  # failures are not cached: a missing library may appear later
        meta_path.write_text(json.dumps(result.to_dict()))
    return result


def build_many(sources: list[Path], params: list, arch: str | None = None,
               cache_dir: Path | None = None, jobs: int | None = None) -> list[BuildResult]:
    """Build several solutions in parallel (threads driving nvcc processes), in input order."""
    arch = arch or detect_arch()
    jobs = jobs or max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda s: build_solution(s, params, arch, cache_dir), sources))


def build_native(cache_dir: Path | None = None) -> dict[str, Path]:
    """Compile the harness's own helpers in ``harness/`` (child library and file-access shim)."""
    cache_dir = Path(cache_dir or CACHE_ROOT / "native")
    srcs = {"slchild": HARNESS_SRC / "slchild.c", "slshim": HARNESS_SRC / "slshim.c"}
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in srcs.values())).hexdigest()[:16]
    out = cache_dir / digest
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, src in srcs.items():
        so = out / f"lib{name}.so"
        if not so.exists():
            cmd = ["gcc", "-O2", "-shared", "-fPIC", "-o", str(so) + ".tmp", str(src), "-ldl"]
            if name == "slchild":
                cmd[1:1] = [f"-I{CUDA_HOME / 'include'}"]
                cmd += [f"-L{CUDA_HOME / 'lib64'}", "-lcudart", f"-Wl,-rpath,{CUDA_HOME / 'lib64'}"]
            res = _run(cmd, 120)
            if res.returncode != 0:
                raise RuntimeError(f"{src}: helper failed to compile:\n{res.stderr}")
            os.replace(str(so) + ".tmp", so)
        paths[name] = so
    return paths


# --------------------------------------------------------------------------------------------
# Child process (runs the untrusted solution)
# --------------------------------------------------------------------------------------------

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
                self.records.append({"kind": "kernel", "ns": a.end - a.start})
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


def summarize_activity(records: list[dict]) -> dict:
    """Totals over CUPTI activity records (the per-call profile columns)."""
    s = {"kernel_launches": 0, "kernel_ms": 0.0, "h2d_bytes": 0, "h2d_ms": 0.0, "d2h_bytes": 0,
         "d2h_ms": 0.0, "d2d_bytes": 0, "memsets": 0, "memset_ms": 0.0, "allocs": 0,
         "alloc_bytes": 0, "frees": 0, "syncs": 0, "api_calls": 0, "api_ms": 0.0}
    for r in records:
        k = r["kind"]
        if k == "kernel":
            s["kernel_launches"] += 1
            s["kernel_ms"] += r["ns"] / 1e6
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


def child_main() -> None:
    """Entry point of the child process. Talks JSON lines over the fds in ``SL_PROTO_FDS``."""
    rfd, wfd = (int(x) for x in os.environ["SL_PROTO_FDS"].split(","))
    rd = os.fdopen(rfd, "r", buffering=1)
    wr = os.fdopen(wfd, "w", buffering=1)

    def reply(**kw) -> None:
        wr.write(json.dumps(kw) + "\n")
        wr.flush()

    setup = json.loads(rd.readline())
    lib = ctypes.CDLL(setup["slchild"], mode=ctypes.RTLD_GLOBAL)
    lib.sl_code_fingerprint.restype = ctypes.c_uint64
    lib.sl_bandwidth.restype = ctypes.c_double
    lib.sl_event_ms.restype = ctypes.c_double
    lib.sl_error_string.restype = ctypes.c_char_p
    timers = ("clock_gettime", "cudaEventElapsedTime", "cuEventElapsedTime", "nanosleep",
              "clock_nanosleep")

    def fingerprints() -> dict:
        out = {}
        for sym in timers:
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
    info: dict[str, Any] = {"l2_bytes": l2.value, "cupti": bool(prof and prof.available),
                            "cupti_error": prof.error if prof else "disabled"}
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

    fd = os.dup(int(setup["memfd"]))
    shm = mmap.mmap(fd, int(setup["mem_size"]))
    base = ctypes.addressof(ctypes.c_char.from_buffer(shm))
    args_template = []
    argtypes = []
    for p in setup["params"]:
        if p["kind"] == "array":
            argtypes.append(ctypes.c_void_p)
            args_template.append(ctypes.c_void_p(base + p["offset"]))
        else:
            argtypes.append(CTYPES[p["dtype"]])
            args_template.append(None)

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
    try:
        sol = ctypes.CDLL(so_path)
        entry = sol.sl_entry
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
    entry.argtypes = argtypes
    entry.restype = None
    reply(op="loaded", sandbox=sandbox, fp_before=fp_before, fp_after=fingerprints(), load=load,
          mem_used=mem_used(), threads=_threads(), **info)

    scalars: dict = {}
    out = (ctypes.c_double * 3)()

    def call_solution() -> None:
        args = [a if a is not None else CTYPES[p["dtype"]](scalars[p["name"]])
                for a, p in zip(args_template, setup["params"], strict=False)]
        arm(1)
        entry(*args)
        arm(0)

    libc = ctypes.CDLL(None)

    class _Timespec(ctypes.Structure):
        _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

    def kernel_sleep(ms: float) -> None:
        """Relative sleep timed by the kernel: no user-space clock is read."""
        ts = _Timespec(int(ms // 1000), int((ms % 1000) * 1e6))
        libc.nanosleep(ctypes.byref(ts), None)

    for line in rd:
        msg = json.loads(line)
        op = msg["op"]
        if op == "prep":
            scalars = msg.get("scalars", {})
            e = lib.sl_flush_l2()
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
            lib.sl_begin()
            call()
            lib.sl_returned()
            e = lib.sl_end(out)
            cpu_ms = _rusage_ms() - c0
            # the timed reply leaves at once; everything else follows in a second message
            reply(op="done", inside_return_ms=out[0] / 1e6, inside_ms=out[1] / 1e6)
            res = {"event_ms": lib.sl_event_ms(), "cpu_ms": cpu_ms}
            if e:
                res["cuda_error"] = lib.sl_error_string(e).decode()
            if profile:
                res["profile"] = prof.stop()
            res.update(mem_used=mem_used(), threads=_threads())
            reply(op="stats", **res)
            if e:
                return
        elif op == "exit":
            reply(op="bye")
            return


# --------------------------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------------------------

class ChildFailed(Exception):
    """The child ended or misbehaved; ``reason`` is the recorded cause."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


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


def _read_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Child:
    """One child process and its protocol, limits and logs."""

    def __init__(self, native: dict[str, Path], setup: dict, cfg: RunConfig,
                 memfd: int | None = None) -> None:
        self.cfg = cfg
        self.workdir = Path(tempfile.mkdtemp(prefix="sl-child-"))
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.shim_r, shim_w = os.pipe()
        pass_fds = [req_r, resp_w, shim_w] + ([memfd] if memfd is not None else [])
        if setup.get("landlock"):
            setup["rw_paths"] = list(setup.get("rw_paths", [])) + [str(self.workdir)]
        if setup.get("so_path"):  # the solution loads from the child's own directory
            local = self.workdir / "solution.so"
            shutil.copy2(setup["so_path"], local)
            setup["so_path"] = str(local)
        env = {
            "PATH": "/usr/bin:/bin", "HOME": str(self.workdir), "TMPDIR": str(self.workdir),
            "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT)] + [
                p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
            "SL_PROTO_FDS": f"{req_r},{resp_w}", "SL_SHIM_FD": str(shim_w),
            "LD_PRELOAD": str(native["slshim"]), "CUDA_MODULE_LOADING": "LAZY",
        }
        for k in ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE"):
            if k in os.environ:
                env[k] = os.environ[k]
        self.stdout_path = self.workdir.parent / f"{self.workdir.name}.stdout"
        self.stderr_path = self.workdir.parent / f"{self.workdir.name}.stderr"
        with open(self.stdout_path, "wb") as so, open(self.stderr_path, "wb") as se:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "from strategylens.harness import child_main; child_main()"],
                cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                pass_fds=pass_fds, start_new_session=True)
        for fd in (req_r, resp_w, shim_w):
            os.close(fd)
        self.shim_lines: list[str] = []
        self._shim_thread = threading.Thread(target=self._drain_shim, daemon=True)
        self._shim_thread.start()
        self._buf = b""
        self.started = time.monotonic()
        setup = dict(setup, slchild=str(native["slchild"]))
        self.send(setup)

    def _drain_shim(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self.shim_r, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            self.shim_lines += [ln.decode(errors="replace") for ln in lines[:5000]]

    def send(self, msg: dict) -> int:
        data = (json.dumps(msg) + "\n").encode()
        t = time.perf_counter_ns()
        try:
            os.write(self.req_w, data)
        except BrokenPipeError:
            raise ChildFailed(*self._death()) from None
        return t

    def recv(self, timeout_s: float | None = None) -> tuple[dict, int]:
        """Next reply and the parent's clock when its last byte arrived."""
        timeout_s = self.cfg.call_timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        t = time.perf_counter_ns()  # a reply already buffered arrived no later than now
        while b"\n" not in self._buf:
            now = time.monotonic()
            if now > deadline:
                self.kill()
                raise ChildFailed("timeout", f"no reply within {timeout_s:.0f} s")
            if now - self.started > self.cfg.solution_timeout_s:
                self.kill()
                raise ChildFailed("timeout", f"solution exceeded {self.cfg.solution_timeout_s:.0f} s")
            ready, _, _ = select.select([self.resp_r], [], [], min(0.05, deadline - now))
            if not ready:
                if _read_rss(self.proc.pid) > self.cfg.mem_limit_bytes:
                    self.kill()
                    raise ChildFailed("memory-limit",
                                      f"resident memory over {self.cfg.mem_limit_bytes >> 20} MiB")
                continue
            chunk = os.read(self.resp_r, 1 << 20)
            t = time.perf_counter_ns()
            if not chunk:
                raise ChildFailed(*self._death())
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
            if not isinstance(msg, dict) or "op" not in msg:
                raise ValueError("not a reply")
        except ValueError:
            self.kill()
            raise ChildFailed("protocol-garbage", repr(line[:200])) from None
        if msg["op"] == "error":
            self.kill()
            raise ChildFailed(msg.get("reason", "error"), msg.get("detail", ""))
        return msg, t

    def _death(self) -> tuple[str, str]:
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.proc.wait()
        err = self.stderr_tail()
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            return "crash", f"killed by {name}; {err}"
        return "exit", f"child exited with status {rc} mid-run; {err}"

    def stderr_tail(self, n: int = 600) -> str:
        try:
            return self.stderr_path.read_bytes()[-n:].decode(errors="replace").strip()
        except OSError:
            return ""

    def stdout_head(self, n: int = 300) -> tuple[int, str]:
        try:
            data = self.stdout_path.read_bytes()
        except OSError:
            return 0, ""
        return len(data), data[:n].decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"op": "exit"})
                self.recv(10)
            except ChildFailed:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        for fd in (self.req_w, self.resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._shim_thread.join(timeout=2)
        try:
            os.close(self.shim_r)
        except OSError:
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)
        for p in (self.stdout_path, self.stderr_path):
            p.unlink(missing_ok=True)


# ---- device facts -------------------------------------------------------------------------

def _smi(query: str) -> str:
    try:
        res = _run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"], 20)
        return res.stdout.strip().splitlines()[0] if res.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError, IndexError):
        return ""


def probe_device(native: dict[str, Path], cfg: RunConfig, bandwidth_bytes: int = 256 << 20) -> dict:
    """GPU facts and copy bandwidths, measured once per run in a child of their own."""
    child = Child(native, {"cupti": False, "bandwidth_bytes": bandwidth_bytes,
                           "device": cfg.device}, cfg)
    try:
        msg, _ = child.recv(120)
        child.send({"op": "exit"})
    finally:
        child.close()
    fields = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,compute_cap"
    vals = _smi(fields).split(", ")
    smi = dict(zip(fields.split(","), vals, strict=False)) if len(vals) == 7 else {}
    return {
        "gpu_name": smi.get("name", "unknown"), "driver": smi.get("driver_version", "unknown"),
        "clocks": {k: smi.get(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm",
                                           "clocks.max.mem")},
        "compute_cap": smi.get("compute_cap"), "l2_bytes": msg.get("l2_bytes"),
        "bandwidth": msg.get("bandwidth", {}), "nvcc": nvcc_version(), "cpu_model": cpu_model(),
        "commit": git_commit() or "unknown", "tool_sha": tool_sha(),
        "tool_version": __version__, "host": platform.node(),
    }


def transfer_floor_ms(bytes_in: int, bytes_out: int, bandwidth: dict, kind: str) -> float | None:
    """Bytes in over host-to-device bandwidth plus bytes out over device-to-host, in ms."""
    h2d, d2h = bandwidth.get(f"{kind}_h2d"), bandwidth.get(f"{kind}_d2h")
    if not h2d or not d2h or h2d <= 0 or d2h <= 0:
        return None
    return (bytes_in / h2d + bytes_out / d2h) * 1e3


# ---- input sets -----------------------------------------------------------------------------

@dataclass
class InputSet:
    """One generated input set of a size and the reference's answer for it (parent only)."""

    seed_offset: int
    inputs: dict
    expected: dict


def rel_noise(samples: list[float]) -> float:
    """Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, sigma from IQR."""
    if len(samples) < 4:
        return math.inf
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    if med <= 0:
        return math.inf
    return float(1.2533 * ((q3 - q1) / 1.349) / math.sqrt(len(a)) / med)


def _layout(params: list[dict], sets: list[InputSet]) -> tuple[list[dict], int]:
    """Offsets of every array in the shared buffer, sized for the largest set."""
    offset, layout = 0, []
    for p in params:
        entry = dict(p)
        if p["kind"] == "array":
            n = 0
            for s in sets:
                arr = s.inputs.get(p["name"]) if p["direction"] != "out" else s.expected.get(p["name"])
                if arr is None:
                    arr = s.inputs.get(p["name"])
                if arr is not None:
                    n = max(n, np.asarray(arr).size)
            nbytes = max(n * np.dtype(NPTYPES[p["dtype"]]).itemsize, 1)
            entry.update(offset=offset, nbytes=nbytes)
            offset += (nbytes + 4095) // 4096 * 4096
        layout.append(entry)
    return layout, max(offset, 4096)


def _default_allowed_paths() -> list[str]:
    """Trees the child may read under Landlock: system libraries, Python, CUDA, this package.

    The repository (tasks, caches) and every other temporary directory stay out of reach.
    """
    roots = {"/usr", "/lib", "/lib64", "/etc", "/opt", "/proc", "/sys", "/dev", str(CUDA_HOME),
             sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parent)}
    from strategylens.tasks import CACHE_DIR  # noqa: PLC0415

    secret = [REPO_ROOT.resolve(), Path(CACHE_DIR).resolve(), CACHE_ROOT.resolve()]
    for p in sys.path:
        if not p or not Path(p).is_dir():
            continue
        rp = Path(p).resolve()
        if any(rp == s or s.is_relative_to(rp) or rp.is_relative_to(s) for s in secret):
            continue  # the repository and the caches (expected outputs) stay unreadable
        roots.add(str(rp))
    return sorted(roots)


def _dtype_lengths(task, s: InputSet, p: dict) -> int:
    src = s.expected.get(p["name"]) if p["direction"] == "out" else s.inputs.get(p["name"])
    return int(np.asarray(src).size)


def run_solution(task, build: BuildResult, size: str, sets: list[InputSet], device: dict,
                 cfg: RunConfig, native: dict[str, Path], compare) -> dict:
    """Run one built solution at one size; return its trace for the audit and the store.

    Parameters
    ----------
    task : strategylens.tasks.Task
        The task (its ``params`` give the signature).
    build : BuildResult
        A compiled solution.
    sets : list of InputSet
        At least three: sets[0] and sets[1] rotate through the timed calls, sets[2:] are fresh
        inputs for the cross-call probe (each called twice after the timed calls).
    device : dict
        From ``probe_device`` (bandwidth for the floor).
    compare : callable
        ``compare(got, expected, tight) -> CompareResult``.

    Returns
    -------
    dict
        ``status`` ('ok' or the failure reason), ``trials`` (every raw timed call) and the
        fields the audit reads.
    """
    params = [_pget(p) for p in task.params]
    layout, mem_size = _layout(params, sets)
    memfd = os.memfd_create("sl-io", 0)
    os.ftruncate(memfd, mem_size)
    shm = mmap.mmap(memfd, mem_size)
    views = {p["name"]: p for p in layout if p["kind"] == "array"}

    def view(name: str, n: int) -> np.ndarray:
        p = views[name]
        return np.frombuffer(shm, dtype=NPTYPES[p["dtype"]], count=n, offset=p["offset"])

    trace: dict[str, Any] = {"status": "ok", "detail": "", "trials": [], "size": size}
    rng = random.Random(cfg.seed)
    child = None
    try:
        setup = {"so_path": build.so_path, "params": layout, "memfd": memfd,
                 "mem_size": mem_size, "device": cfg.device, "cupti": cfg.cupti,
                 "landlock": cfg.landlock, "ro_paths": _default_allowed_paths(),
                 "rw_paths": ["/dev"]}
        child = Child(native, setup, cfg, memfd=memfd)
        loaded, _ = child.recv(180)
        trace.update(sandbox=loaded.get("sandbox"), fp_before=loaded.get("fp_before"),
                     fp_after=loaded.get("fp_after"), load=loaded.get("load"),
                     cupti=loaded.get("cupti"), cupti_error=loaded.get("cupti_error"),
                     mem_after_load=loaded.get("mem_used"))
        # Round trip of a no-op call: the outside-minus-inside overhead the bound comes from.
        overhead = []
        for _ in range(100):
            child.send({"op": "prep", "scalars": {}})
            child.recv()
            t0 = child.send({"op": "noop"})
            msg, t1 = child.recv()
            child.recv()
            overhead.append((t1 - t0) / 1e6 - msg["inside_ms"])
        trace["noop_overhead_ms"] = overhead

        last_verdict: dict[int, tuple[np.ndarray, dict]] = {}

        def one_call(k: int, phase: str, profile: bool = False) -> dict:
            s = sets[k]
            for p in params:  # inputs in, outputs poisoned
                if p["kind"] != "array":
                    continue
                n = _dtype_lengths(task, s, p)
                v = view(p["name"], n)
                if p["direction"] == "out":
                    v.view(np.uint8)[:] = POISON_BYTE
                else:
                    v[:] = np.asarray(s.inputs[p["name"]]).ravel()
            scalars = {p["name"]: _scalar(s.inputs.get(p["name"])) for p in params
                       if p["kind"] == "scalar"}
            child.send({"op": "prep", "scalars": scalars, "profile": profile})
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
            got = {p["name"]: view(p["name"], _dtype_lengths(task, s, p)).copy()
                   for p in params if p["kind"] == "array" and p["direction"] in ("out", "inout")
                   and p["name"] in s.expected}
            rec.update(_validate(got, s, sets, compare, last_verdict.get(k)))
            last_verdict[k] = (got, {key: rec[key] for key in _VERDICT_KEYS})
            rec["inputs_changed"] = any(
                not np.array_equal(view(p["name"], _dtype_lengths(task, s, p)),
                                   np.asarray(s.inputs[p["name"]]).ravel(), equal_nan=True)
                for p in params if p["kind"] == "array" and p["direction"] == "in")
            trace["trials"].append(rec)
            return rec

        order = _rotation(rng)
        t_start = time.monotonic()
        while time.monotonic() - t_start < cfg.warmup_s or len(trace["trials"]) < 2:
            one_call(next(order), "warmup")
        times: list[float] = []
        t_start = time.monotonic()
        stop = "budget"
        while True:
            rec = one_call(next(order), "timed")
            times.append(rec["outside_ms"])
            if len(times) >= cfg.min_trials and rel_noise(times) < cfg.noise_target:
                stop = "noise"
                break
            if len(times) >= cfg.max_trials:
                stop = "max-trials"
                break
            if time.monotonic() - t_start > cfg.measure_s and len(times) >= 3:
                break
        trace["stop_rule"] = stop
        # Calibration at the calls' own duration: the child sleeps D ms (kernel-timed) inside
        # the timed window; outside - D is the round trip including the wake-up latency of an
        # idle parent, which a no-op call does not see. No child clock is involved.
        d = float(np.median(times))
        sleep_over = []
        for _ in range(int(min(20, max(5, 1000.0 / max(d, 1e-3))))):
            child.send({"op": "prep", "scalars": {}})
            child.recv()
            t0 = child.send({"op": "sleep", "ms": d})
            _, t1 = child.recv()
            child.recv()
            sleep_over.append((t1 - t0) / 1e6 - d)
        trace["sleep_overhead_ms"] = sleep_over
        trace["sleep_ms"] = d
        # cross-call probe: a fresh input set, the same again, then a timed set as a control
        # for drift (the audit compares the fresh call with the calls around it); one untimed
        # call first so that the probe does not follow the idle sleep calibration
        one_call(0, "warmup")
        for k in range(2, len(sets)):
            one_call(k, "probe-novel")
            one_call(k, "probe-repeat")
            one_call(0, "probe-control")
        for i in range(cfg.profile_calls if trace.get("cupti") else 0):
            one_call(i % 2, "profile", profile=True)
        child.send({"op": "exit"})
        child.recv(30)
    except ChildFailed as exc:
        trace.update(status=exc.reason, detail=exc.detail[:2000])
    finally:
        if child is not None:
            child.close()
            trace["stdout_bytes"], trace["stdout_head"] = child.stdout_head()
            trace["stderr_tail"] = child.stderr_tail()
            trace["shim"] = child.shim_lines
            trace["child_pid"] = child.proc.pid
        try:
            shm.close()
        except BufferError:  # a numpy view still refers to it; it closes when collected
            pass
        os.close(memfd)
    return trace


_VERDICT_KEYS = ("correct", "mismatches", "max_abs_err", "nan_count", "stale_of", "poison_left",
                 "tight_ok")


def _scalar(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray) and v.size == 1:
        return v.item()
    return v


def _rotation(rng: random.Random):
    """Endless random order over sets 0 and 1, balanced in blocks of four."""
    while True:
        block = [0, 0, 1, 1]
        rng.shuffle(block)
        yield from block


def _validate(got: dict, s: InputSet, sets: list[InputSet], compare, previous) -> dict:
    if previous is not None:
        prev_got, verdict = previous
        if all(np.array_equal(got[k], prev_got[k], equal_nan=True) for k in got):
            return dict(verdict)  # bit-identical output: same verdict, no second comparison
    res = compare(got, s.expected, False)
    poison_left = 0
    for k, arr in got.items():
        is_poison = _poisoned(arr)
        if is_poison.any():  # unless the answer itself holds the poison pattern there
            exp = np.asarray(s.expected[k]).ravel().astype(arr.dtype, copy=False)
            poison_left += int((~_poisoned(exp[is_poison])).sum())
    stale_of = None
    if not res.ok:
        for other in sets:
            if other is not s and _same_shape(got, other.expected) and compare(got, other.expected, False).ok:
                stale_of = other.seed_offset
                break
    tight_ok = None
    if res.ok:
        tight = compare(got, s.expected, True)
        tight_ok = None if tight is None else bool(tight.ok)
    return {"correct": bool(res.ok), "mismatches": int(res.mismatches or 0),
            "max_abs_err": _finite(res.max_abs_err), "nan_count": int(res.nan_count or 0),
            "stale_of": stale_of, "poison_left": poison_left, "tight_ok": tight_ok,
            "compare_detail": str(res.detail or "")[:300]}


def _poisoned(arr: np.ndarray) -> np.ndarray:
    """Mask of the elements whose every byte is POISON_BYTE."""
    width = arr.dtype.itemsize
    if width in (1, 2, 4, 8):
        return arr.view(f"u{width}") == int.from_bytes(bytes([POISON_BYTE]) * width, "little")
    return (arr.view(np.uint8).reshape(arr.size, -1) == POISON_BYTE).all(axis=1)


def _same_shape(a: dict, b: dict) -> bool:
    return all(k in b and np.asarray(b[k]).size == np.asarray(v).size for k, v in a.items())


def _finite(x: Any) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


# --------------------------------------------------------------------------------------------
# Orchestration: build, reference, run, audit, store
# --------------------------------------------------------------------------------------------

_DEVICE_CACHE: dict[int, dict] = {}


def solution_id(source: Path) -> str:
    """Stable name of a solution: its path relative to the repository when inside it."""
    p = Path(source).resolve()
    try:
        return str(p.relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def n_sets(size: str) -> int:
    """Input sets per size: two rotate through the timed calls, the rest are fresh probes.

    Large sizes get one fresh probe set instead of two: their references cost the most CPU
    time and their timings are the least noisy."""
    return 3 if size == "large" else 4


def input_sets(task, size: str, n: int | None = None, remeasure_cpu: bool = False,
               cpu_trials: int = 3) -> tuple[list[InputSet], dict]:
    """Generate ``n`` input sets (seed offsets 0..n-1) with their expected outputs.

    The CPU reference is timed on set 0 (``strategylens.tasks.run_reference``: single thread,
    pinned); its cached record is reused unless it was measured on another CPU model or
    ``remeasure_cpu`` is set. Returns the sets and the CPU timing record.
    """
    from strategylens.tasks import run_reference  # noqa: PLC0415

    n = n or n_sets(size)
    here = cpu_model()
    refs = []
    for k in range(n):
        ref = run_reference(task, size, trials=cpu_trials if k == 0 else 1, seed_offset=k,
                            remeasure=remeasure_cpu and k == 0)
        if k == 0 and ref.record.get("cpu_model") != here:
            ref = run_reference(task, size, trials=cpu_trials, seed_offset=0, remeasure=True)
        refs.append(ref)
    with ThreadPoolExecutor(n) as pool:  # numpy's generators release the GIL while filling
        inputs = list(pool.map(lambda k: task.generate(size, k), range(n)))
    sets = [InputSet(k, inputs[k], refs[k].outputs) for k in range(n)]
    return sets, dict(refs[0].record, cached=refs[0].cached)


def bytes_in_out(task, s: InputSet) -> tuple[int, int]:
    """Bytes of the arrays moved in (in, inout) and out (out, inout) for one input set."""
    b_in = b_out = 0
    for p in map(_pget, task.params):
        if p["kind"] != "array":
            continue
        if p["direction"] in ("in", "inout"):
            b_in += np.asarray(s.inputs[p["name"]]).nbytes
        if p["direction"] in ("out", "inout"):
            src = s.expected.get(p["name"], s.inputs.get(p["name"]))
            b_out += np.asarray(src).nbytes
    return b_in, b_out


def _median_iqr(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    q1, med, q3 = np.percentile(np.asarray(values, dtype=float), [25, 50, 75])
    return float(med), float(q3 - q1)


def result_row(task, build: BuildResult, size: str, trace: dict | None, cpu: dict,
               device: dict, cfg: RunConfig, bytes_io: tuple[int, int],
               flags: dict[str, str], device_s: float) -> dict:
    """One results row: the issue's columns plus build info, floor ratio and provenance."""
    from strategylens.audit import Thresholds, tamper_bound_ms  # noqa: PLC0415

    trace = trace or {}
    timed = [t for t in trace.get("trials", []) if t.get("phase") == "timed"]
    tampered = "timer-tamper" in flags
    source = "outside" if tampered else "inside"
    e2e = [t["outside_ms"] if tampered else t["inside_ms"] for t in timed]
    med, iqr = _median_iqr(e2e)
    called = [t for t in trace.get("trials", []) if t.get("phase") != "warmup"]
    correct = bool(build.compiled and trace.get("status") == "ok" and called
                   and all(t.get("correct") for t in called))
    profiled = [t["profile"] for t in trace.get("trials", []) if t.get("profile")]
    prof = {k: float(np.median([p[k] for p in profiled])) for k in profiled[0]} if profiled else {}
    cpu_ms = cpu.get("median_s", 0) * 1e3 if cpu.get("median_s") else None
    bw = device.get("bandwidth", {})
    floor_pinned = transfer_floor_ms(*bytes_io, bw, "pinned")
    floor_pageable = transfer_floor_ms(*bytes_io, bw, "pageable")
    kernels = build.kernels or []
    overhead = trace.get("noop_overhead_ms", [])
    mem_end = timed[-1].get("mem_used") if timed else None
    return {
        "task": task.id, "solution": solution_id(Path(build.source)), "size": size,
        "compiled": bool(build.compiled), "correct": correct,
        "status": "compile-error" if not build.compiled else trace.get("status", "not-run"),
        "status_detail": (build.error if not build.compiled else trace.get("detail", ""))[:2000],
        "e2e_ms_median": med, "e2e_ms_iqr": iqr,
        "e2e_ms_rel_iqr": (iqr / med) if med else None, "n_trials": len(e2e),
        "stop_rule": trace.get("stop_rule"), "timing_source": source if timed else None,
        "outside_ms_median": _median_iqr([t["outside_ms"] for t in timed])[0],
        "inside_ms_median": _median_iqr([t["inside_ms"] for t in timed])[0],
        "event_ms_median": _median_iqr([t["event_ms"] for t in timed])[0],
        "return_ms_median": _median_iqr([t["return_ms"] for t in timed])[0],
        "host_cpu_ms_median": _median_iqr([t["cpu_ms"] for t in timed])[0],
        "roundtrip_ms": float(np.median(overhead)) if overhead else None,
        "tamper_bound_ms": tamper_bound_ms(overhead, trace.get("sleep_overhead_ms"))
        if overhead else None,
        "sleep_overhead_ms": float(np.median(trace["sleep_overhead_ms"]))
        if trace.get("sleep_overhead_ms") else None,
        "cpu_ms": cpu_ms, "cpu_trials_s": json.dumps(cpu.get("trials_s", [])),
        "cpu_cached": bool(cpu.get("cached")), "cpu_pinned_core": cpu.get("cpu"),
        "speedup": (cpu_ms / med) if (cpu_ms and med and correct) else None,
        "audit_flags": sorted(k for k in flags if not k.startswith("_")),
        "audit_detail": json.dumps(flags, sort_keys=True),
        "profile_available": bool(profiled),
        "profile_missing": "" if profiled else (trace.get("cupti_error") or "no profiled calls"),
        "kernel_launches": prof.get("kernel_launches"), "kernel_ms": prof.get("kernel_ms"),
        "h2d_bytes": prof.get("h2d_bytes"), "h2d_ms": prof.get("h2d_ms"),
        "d2h_bytes": prof.get("d2h_bytes"), "d2h_ms": prof.get("d2h_ms"),
        "memsets": prof.get("memsets"), "allocs": prof.get("allocs"),
        "frees": prof.get("frees"), "syncs": prof.get("syncs"),
        "bytes_in": bytes_io[0], "bytes_out": bytes_io[1],
        "floor_ms_pinned": floor_pinned, "floor_ms_pageable": floor_pageable,
        "floor_ratio": (med / floor_pinned) if (med and floor_pinned) else None,
        "floor_ratio_pageable": (med / floor_pageable) if (med and floor_pageable) else None,
        "persistent_device_bytes": (mem_end - trace["mem_after_load"])
        if (mem_end is not None and trace.get("mem_after_load") is not None) else None,
        "load_wall_ms": (trace.get("load") or {}).get("wall_ms"),
        "sandbox": trace.get("sandbox"), "stdout_bytes": trace.get("stdout_bytes", 0),
        "stdout_head": trace.get("stdout_head", ""),
        "arch": build.arch, "nvcc_flags": " ".join(build.flags),
        "libraries": ";".join(build.libraries), "build_s": build.build_s,
        "build_cached": build.cache_hit, "source_sha256": build.source_sha256,
        "kernels": json.dumps(kernels),
        "registers_max": max((k["registers"] for k in kernels), default=None),
        "smem_bytes_max": max((k["smem_bytes"] for k in kernels), default=None),
        "spill_bytes": sum(k["spill_stores"] + k["spill_loads"] for k in kernels),
        "gpu_name": device.get("gpu_name"), "driver": device.get("driver"),
        "nvcc": device.get("nvcc"), "clocks": json.dumps(device.get("clocks", {})),
        "l2_bytes": device.get("l2_bytes"), "bandwidth": json.dumps(bw),
        "cpu_model": cpu.get("cpu_model") or device.get("cpu_model"),
        "commit": device.get("commit"), "tool_sha": device.get("tool_sha"),
        "tool_version": device.get("tool_version"), "host": device.get("host"),
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": json.dumps(cfg.__dict__, sort_keys=True),
        "thresholds": json.dumps(Thresholds().__dict__, sort_keys=True),
        "device_s": round(device_s, 3),
    }


def benchmark(task, sources: list[Path], sizes: list[str], store_dir: Path,
              cfg: RunConfig | None = None, remeasure_cpu: bool = False,
              arch: str | None = None, log=None) -> list[dict]:
    """Build, run, audit and store every (solution, size) not already in the store.

    Each finished (solution, size) is written to the store at once, so an interrupted run
    loses nothing and a second call resumes. Returns the rows written by this call.
    """
    from strategylens import store  # noqa: PLC0415
    from strategylens.audit import audit  # noqa: PLC0415
    from strategylens.tasks import compare as task_compare  # noqa: PLC0415

    cfg = cfg or RunConfig()
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    store_dir = Path(store_dir)
    done = store.done_keys(store_dir)
    todo = [(s, z) for s in sources for z in sizes
            if (task.id, solution_id(s), z) not in done]
    if not todo:
        log(f"{task.id}: every requested (solution, size) is already in {store_dir}")
        return []
    native = build_native()
    arch = arch or detect_arch()
    uniq = sorted({s for s, _ in todo}, key=str)
    builds = dict(zip(uniq, build_many(uniq, task.params, arch), strict=False))
    if cfg.device not in _DEVICE_CACHE:
        try:
            _DEVICE_CACHE[cfg.device] = probe_device(native, cfg)
        except ChildFailed as exc:
            raise RuntimeError(f"no usable GPU (device {cfg.device}): {exc}") from exc
    device = _DEVICE_CACHE[cfg.device]
    rows = []
    for size in sizes:
        batch = [s for s, z in todo if z == size]
        if not batch:
            continue
        t0 = time.monotonic()
        sets, cpu = input_sets(task, size, remeasure_cpu=remeasure_cpu)
        log(f"{task.id}/{size}: inputs and reference ready in {time.monotonic() - t0:.1f} s "
            f"(cpu {cpu.get('median_s', 0) * 1e3:.2f} ms, cached={cpu.get('cached')})")
        bytes_io = bytes_in_out(task, sets[0])

        def compare(got, expected, tight):
            if tight and not task.correctness.tight:
                return None
            return task_compare(task, got, expected, tight=tight)

        for src in batch:
            b = builds[src]
            trace, flags = None, {}
            t0 = time.monotonic()
            if b.compiled:
                trace = run_solution(task, b, size, sets, device, cfg, native, compare)
                trace["floor_pinned_ms"] = transfer_floor_ms(*bytes_io, device.get("bandwidth", {}),
                                                             "pinned")
                flags = audit(trace)
            row = result_row(task, b, size, trace, cpu, device, cfg, bytes_io, flags,
                             time.monotonic() - t0)
            trials = [dict(t, task=task.id, solution=row["solution"], size=size, index=i,
                           profile=json.dumps(t.get("profile")) if t.get("profile") else None)
                      for i, t in enumerate((trace or {}).get("trials", []))]
            store.append(store_dir, row, trials, trace)
            rows.append(row)
            med = row["e2e_ms_median"]
            log(f"{task.id}/{size} {row['solution']}: {row['status']}, correct={row['correct']}, "
                f"e2e={'-' if med is None else f'{med:.3f} ms'}, flags={row['audit_flags']}")
    return rows


def _clean(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, np.generic):
        return _clean(v.item())
    return v


def reaudit(store_dir: Path) -> list[dict]:
    """Recompute the audit of every stored (task, solution, size) from its recorded trace.

    The raw trials and traces are not touched; each summary row gets the flags, evidence,
    tamper bound, timing source and the figures that depend on it under the current
    thresholds. Use after changing a threshold: no GPU is needed. Returns the updated rows.
    """
    import pandas as pd  # noqa: PLC0415

    from strategylens import store  # noqa: PLC0415
    from strategylens.audit import Thresholds, audit, tamper_bound_ms  # noqa: PLC0415

    store_dir = Path(store_dir)
    rows = []
    for f in sorted((store_dir / "results").glob("*.parquet")):
        trace_file = store_dir / "traces" / f"{f.stem}.json"
        trials_file = store_dir / "trials" / f"{f.stem}.parquet"
        row = {k: _clean(v) for k, v in pd.read_parquet(f).iloc[0].to_dict().items()}
        if not (trace_file.exists() and trials_file.exists()):
            continue
        trace = json.loads(trace_file.read_text())
        trials = []
        for t in pd.read_parquet(trials_file).to_dict("records"):
            t = {k: _clean(v) for k, v in t.items()}
            t["profile"] = json.loads(t["profile"]) if t.get("profile") else None
            trials.append(t)
        trace["trials"] = trials
        flags = audit(trace)
        timed = [t for t in trials if t.get("phase") == "timed"]
        tampered = "timer-tamper" in flags
        med, iqr = _median_iqr([t["outside_ms"] if tampered else t["inside_ms"] for t in timed])
        overhead = trace.get("noop_overhead_ms") or []
        row.update(
            audit_flags=sorted(k for k in flags if not k.startswith("_")),
            audit_detail=json.dumps(flags, sort_keys=True),
            timing_source=("outside" if tampered else "inside") if timed else None,
            e2e_ms_median=med, e2e_ms_iqr=iqr, e2e_ms_rel_iqr=(iqr / med) if med else None,
            tamper_bound_ms=tamper_bound_ms(overhead, trace.get("sleep_overhead_ms"))
            if overhead else None,
            speedup=(row["cpu_ms"] / med) if (row.get("cpu_ms") and med and row["correct"])
            else None,
            floor_ratio=(med / row["floor_ms_pinned"]) if (med and row.get("floor_ms_pinned"))
            else None,
            floor_ratio_pageable=(med / row["floor_ms_pageable"])
            if (med and row.get("floor_ms_pageable")) else None,
            thresholds=json.dumps(Thresholds().__dict__, sort_keys=True))
        store.append(store_dir, row)
        rows.append(row)
    return rows
