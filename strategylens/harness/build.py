"""Build: compile each solution with its signature wrapper into a shared library (nvcc), the
harness's own native helpers (gcc), and read per-kernel resources from ptxas.

Builds are cached by the hash of the source, the wrapper, the flags and the nvcc version, run in
parallel, and a compile error is a result, not an exception. Nothing here needs a GPU.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from strategylens.dtypes import DTYPES
from strategylens.resources import HARNESS_DIR, atomic_write, cache_root

CUDA_HOME = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
DEFAULT_ARCH = "sm_90"  # the H200's; used when no GPU answers and nothing else is given

# header -> library; curand_kernel.h is device-side and header-only, so it links nothing.
LIBRARY_HEADERS = {
    "cublas_v2.h": "cublas", "cublas.h": "cublas", "cublasLt.h": "cublasLt",
    "cusparse.h": "cusparse", "cusparse_v2.h": "cusparse",
    "cusolverDn.h": "cusolver", "cusolverSp.h": "cusolver", "cusolverRf.h": "cusolver",
    "cufft.h": "cufft", "cufftXt.h": "cufft", "curand.h": "curand",
}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def run_tool(cmd: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def detect_arch(default: str = DEFAULT_ARCH) -> str:
    """Compute capability of GPU 0 as ``sm_XY``, or ``default`` when no GPU answers.

    ``STRATEGYLENS_ARCH`` overrides both.
    """
    if os.environ.get("STRATEGYLENS_ARCH"):
        return os.environ["STRATEGYLENS_ARCH"]
    try:
        res = run_tool(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], 20)
        cap = res.stdout.strip().splitlines()[0].strip()
        major, minor = cap.split(".")
        return f"sm_{int(major)}{int(minor)}"
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return default


def nvcc_version() -> str:
    try:
        out = run_tool([str(nvcc_path()), "--version"]).stdout
        m = re.search(r"release [\d.]+, (V[\d.]+)", out)
        return m.group(1) if m else out.strip().splitlines()[-1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def nvcc_path() -> Path:
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


def nvcc_flags(arch: str) -> list[str]:
    """The flags every solution library is compiled with (ptxas reports its resources)."""
    return ["-O3", "-std=c++17", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC",
            "-cudart", "shared", "-Xptxas", "-v"]


def link_args(libs: list[str]) -> tuple[list[str], list[str]]:
    """(nvcc arguments that link ``libs`` with an rpath, and the headers of those found outside
    the CUDA toolkit; the libraries not found)."""
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
    return link, missing


def libraries_used(source: str) -> list[str]:
    """CUDA libraries a source needs linked, from its ``#include`` lines."""
    libs = {LIBRARY_HEADERS[Path(h).name] for h in _INCLUDE.findall(source)
            if Path(h).name in LIBRARY_HEADERS}
    if "cublasLt" in libs:
        libs.add("cublas")
    return sorted(libs)


def param_dict(p: Any) -> dict:
    """A task parameter (``tasks.Param`` or dict) as a plain dict."""
    if isinstance(p, dict):
        return p
    return {k: getattr(p, k, None) for k in ("name", "kind", "dtype", "direction", "length")}


def wrapper_source(params: list) -> str:
    """C++ forwarding wrapper generated from a task signature.

    ``params`` are the task's parameters in signature order (objects or dicts with ``name``,
    ``kind`` (array|scalar) and ``dtype``). Array parameters are passed without ``const`` so
    the wrapper compiles whichever constness the solution declares.
    """
    decls, names = [], []
    for p in map(param_dict, params):
        ctype = DTYPES[p["dtype"]].cdecl
        decls.append(f"{ctype}* {p['name']}" if p["kind"] == "array" else f"{ctype} {p['name']}")
        names.append(p["name"])
    return (f'extern "C" void sl_entry({", ".join(decls)}) {{\n'
            f"    solution_compute({', '.join(names)});\n}}\n")


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


def cached_build(out_dir: Path, source: Path) -> BuildResult | None:
    """The build recorded in ``out_dir`` (a cache entry), or None. The library is looked up in
    ``out_dir`` itself: the cache folder may have moved (built on one machine, carried to the
    GPU machine)."""
    meta_path = out_dir / "build.json"
    if not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("so_path"):
        meta["so_path"] = str(out_dir / "solution.so")
    meta.update(source=str(source), cache_hit=True)
    return BuildResult(**meta)


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
        Build cache root; default ``<cache root>/builds``.

    Returns
    -------
    BuildResult
        ``compiled`` is False with the compiler's message in ``error`` when nvcc fails.
    """
    source = Path(source)
    arch = arch or detect_arch()
    cache_dir = Path(cache_dir or cache_root() / "builds")
    try:
        text = source.read_text(errors="replace")
    except OSError as exc:
        return BuildResult(str(source), False, None, arch, [], [], error=f"{source}: {exc}")
    libs = libraries_used(text)
    flags = [*nvcc_flags(arch), *(extra_flags or [])]
    link, missing = link_args(libs)
    wrapper = wrapper_source(params)
    sha = hashlib.sha256(text.encode() + wrapper.encode()).hexdigest()
    key = hashlib.sha256(json.dumps([sha, flags, link, nvcc_version()]).encode()).hexdigest()[:24]
    out_dir = cache_dir / key
    meta_path = out_dir / "build.json"
    hit = cached_build(out_dir, source)
    if hit is not None:
        return hit
    if missing:
        return BuildResult(str(source), False, None, arch, flags, libs,
                           error=f"{source}: library not found for linking: {', '.join(missing)}",
                           source_sha256=sha)
    out_dir.mkdir(parents=True, exist_ok=True)
    unit = out_dir / "unit.cu"
    unit.write_text(f'#include "{source.resolve()}"\n\n{wrapper}')
    so = out_dir / "solution.so"
    cmd = [str(nvcc_path()), *flags, "-o", str(so), str(unit), *link]
    t0 = time.perf_counter()
    try:
        res = run_tool(cmd, timeout_s)
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
        atomic_write(meta_path, json.dumps(result.to_dict()))
    return result


def build_many(sources: list[Path], params: list, arch: str | None = None,
               cache_dir: Path | None = None, jobs: int | None = None) -> list[BuildResult]:
    """Build several solutions in parallel (threads driving nvcc processes), in input order."""
    arch = arch or detect_arch()
    jobs = jobs or max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda s: build_solution(s, params, arch, cache_dir), sources))


def build_native(cache_dir: Path | None = None) -> dict[str, Path]:
    """Compile the harness's own helpers (``slchild.c``: the child's device side;
    ``slshim.c``: the file-access shim) from the bundled harness sources."""
    cache_dir = Path(cache_dir or cache_root() / "native")
    srcs = {"slchild": HARNESS_DIR / "slchild.c", "slshim": HARNESS_DIR / "slshim.c"}
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in srcs.values())).hexdigest()[:16]
    out = cache_dir / digest
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, src in srcs.items():
        so = out / f"lib{name}.so"
        if not so.exists():
            tmp = out / f".lib{name}.so.{os.getpid()}.tmp"
            cmd = ["gcc", "-O2", "-shared", "-fPIC", "-o", str(tmp), str(src), "-ldl"]
            if name == "slchild":
                cmd[1:1] = [f"-I{CUDA_HOME / 'include'}"]
                cmd += [f"-L{CUDA_HOME / 'lib64'}", "-lcudart", f"-Wl,-rpath,{CUDA_HOME / 'lib64'}"]
            res = run_tool(cmd, 120)
            if res.returncode != 0:
                tmp.unlink(missing_ok=True)
                raise RuntimeError(f"{src}: helper failed to compile:\n{res.stderr}")
            os.replace(tmp, so)
        paths[name] = so
    return paths


def build_report(builds: list[BuildResult], task_id: str, solution_id) -> list[dict]:
    """Rows for ``strategylens run --build-only``: one per kernel of every compiled solution,
    one per solution that failed to compile (``kernel`` empty, ``error`` its first line)."""
    rows = []
    for b in builds:
        base = {"task": task_id, "solution": solution_id(Path(b.source)), "compiled": b.compiled,
                "arch": b.arch, "build_s": b.build_s, "build_cached": b.cache_hit}
        if not b.compiled:
            first = next((ln.strip() for ln in b.error.splitlines() if "error" in ln.lower()),
                         b.error.strip().splitlines()[0] if b.error.strip() else "")
            rows.append(dict(base, kernel="", error=first[:300], error_full=b.error))
            continue
        if not b.kernels:
            rows.append(dict(base, kernel="", error="", note="no device kernel"))
        for k in b.kernels:
            rows.append(dict(base, kernel=k["kernel"], registers=k["registers"],
                             smem_bytes=k["smem_bytes"], stack_bytes=k["stack_bytes"],
                             spill_stores=k["spill_stores"], spill_loads=k["spill_loads"],
                             barriers=k["barriers"], error=""))
    return rows


# ------------------------------------------------------------------------ names of launch stubs

_OFFSET = re.compile(r"@0x([0-9a-f]+)")


@functools.lru_cache(maxsize=64)
def _functions(so_path: str) -> dict[int, str]:
    """Offset -> name of every function in a library's full symbol table (.symtab holds the
    hidden ones, such as CUDA 13's kernel launch stubs, that dladdr cannot name)."""
    from elftools.common.exceptions import ELFError  # noqa: PLC0415
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    out: dict[int, str] = {}
    try:
        with open(so_path, "rb") as fh:
            elf = ELFFile(fh)
            for name in (".symtab", ".dynsym"):
                table = elf.get_section_by_name(name)
                for sym in table.iter_symbols() if table is not None else []:
                    if sym["st_info"]["type"] == "STT_FUNC" and sym["st_value"]:
                        out.setdefault(sym["st_value"], sym.name)
    except (OSError, ELFError):
        pass
    return out


def name_launches(lines: list[str], so_path: str | None) -> list[str]:
    """The shim's CUDA lines with each ``@0x<offset>`` (a launch whose stub the child could not
    name) replaced by the function at that offset of the solution's library, when known."""
    if not so_path or not any("@0x" in ln for ln in lines):
        return lines
    funcs = _functions(str(so_path))
    return [_OFFSET.sub(lambda m: funcs.get(int(m.group(1), 16), m.group(0)), ln)
            for ln in lines]
