"""AccelEval tasks through the same harness: solutions built with the task's own ``task_io.cu``
adapter, and a session that drives the adapter in the child.

Build (no GPU needed): nvcc compiles the solution, the task's ``task_io.cu`` (against
strategylens's ``acceleval_io.h``) and the allocation tracker into one shared library; no
signature is written by hand. A solution in the older interface (``solution_init`` +
``solution_compute`` of fewer parameters, as AccelEval's human baselines are) gets a bridge
generated from the names in both signatures: a ``solution_compute`` of the current signature that
calls init, compute and free, so that everything is timed in the call, as the current interface
wants; a parameter the bridge cannot name makes the build fail with the reason.

Run: the child builds one ``TaskData`` per input set over the shared buffer and calls
``task_setup`` once per set (untimed, as AccelEval does); a timed call is ``task_run`` on the
set's context. The buffers task_setup left zero (outputs) are poisoned before each call and copied
to the parent after it; the answer is the text ``task_write_output`` prints, read whenever the
output bytes differ from the last call validated on that set. What cannot apply to such a task is
recorded per size in ``trace["not_applicable"]`` (see :func:`not_applicable`).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from strategylens.harness.build import (BuildResult, cached_build, detect_arch, libraries_used,
                                        link_args, nvcc_flags, nvcc_path, nvcc_version,
                                        parse_ptxas, run_tool)
from strategylens.harness.buffers import InputSet
from strategylens.harness.sandbox import ChildFailed
from strategylens.harness.session import Session
from strategylens.harness.validate import VERDICT_KEYS, same_bytes, validate
from strategylens.resources import HARNESS_DIR, atomic_write, cache_root

HEADER_DIR = HARNESS_DIR / "acceleval"
TRACKER = HEADER_DIR / "slae_track.c"
DTYPE_CODES = {"int32": 0, "float32": 1, "float64": 2}
DTYPE_NAMES = {"int32": "i32", "float32": "f32", "float64": "f64"}
POISON_WORD = 0xA5A5A5A5
SETUP_TIMEOUT_S = 600.0

# What AccelEval's compile step puts before every solution: a declaration of solution_free, so
# that a solution calling it before defining it still compiles.
_PREFIX = """#ifdef __cplusplus
extern "C" {
#endif
void solution_free(void);
#ifdef __cplusplus
}
#endif
"""


class BridgeError(ValueError):
    """A solution in the older init/compute interface whose parameters cannot be matched."""


# --------------------------------------------------------------------------- building

def _c_params(text: str, name: str) -> list[tuple[str, str]] | None:
    """(declaration, name) of each parameter of the first definition of ``name`` in ``text``
    (comments stripped); None when there is none."""
    clean = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)
    m = re.search(r"\bvoid\s+" + name + r"\s*\(([^)]*)\)\s*\{", clean)
    if not m:
        return None
    body = " ".join(m.group(1).split())
    if body in ("", "void"):
        return []
    out = []
    for part in body.split(","):
        pm = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\])?\s*$", part.strip())
        if not pm:
            raise BridgeError(f"cannot read parameter {part.strip()!r} of {name}")
        out.append((part.strip(), pm.group(1)))
    return out


def legacy_bridge(text: str, signature: str) -> str | None:
    """The bridge for a solution that defines ``solution_init`` (the older interface), or None.

    Each init and compute parameter is passed the current signature's parameter of the same
    name; an output pointer of compute whose name the signature lacks takes the signature's
    next unused output pointer. The bridge calls init, compute, then free when defined.

    Raises
    ------
    BridgeError
        When a parameter has no counterpart in the current signature.
    """
    from strategylens.tasks.own import parse_signature  # noqa: PLC0415

    init = _c_params(text, "solution_init")
    if init is None:
        return None
    compute = _c_params(text, "solution_compute") or []
    current = parse_signature(signature)
    names = [n for n, *_ in current]
    outs = [n for n, _, is_ptr, is_const in current if is_ptr and not is_const]

    def match(params: list[tuple[str, str]], which: str, used_outs: list[str]) -> list[str]:
        args = []
        for decl, name in params:
            if name in names:
                args.append(name)
                if name in outs:
                    used_outs.append(name)
                continue
            is_out = "*" in decl and not re.match(r"\s*const\b", decl)
            free = [o for o in outs if o not in used_outs]
            if is_out and free:
                used_outs.append(free[0])
                args.append(free[0])
                continue
            raise BridgeError(f"parameter '{decl}' of {which} has no counterpart in the current "
                              f"signature ({signature})")
        return args

    used: list[str] = []
    init_args = match(init, "solution_init", used)
    compute_args = match(compute, "solution_compute", used)
    has_free = _c_params(text, "solution_free") is not None
    decls = ", ".join((f"const {ctype}* " if const else f"{ctype}* ") + name if ptr
                      else f"{ctype} {name}" for name, ctype, ptr, const in current)
    return ("\n// strategylens: bridge from the current signature to the older interface\n"
            f'extern "C" void solution_compute({decls}) {{\n'
            f"    sl_legacy_init({', '.join(init_args)});\n"
            f"    sl_legacy_compute({', '.join(compute_args)});\n"
            + ("    sl_legacy_free();\n" if has_free else "") + "}\n")


def solution_unit(source: Path, text: str, task) -> tuple[str, bool]:
    """The translation unit nvcc compiles for a solution, and whether it holds a bridge."""
    unit = f'{_PREFIX}\n#include "{source.resolve()}"\n'
    bridge = legacy_bridge(text, task.signature) if task.signature else None
    if bridge is None:
        return unit, False
    return ("#define solution_init sl_legacy_init\n#define solution_compute sl_legacy_compute\n"
            "#define solution_free sl_legacy_free\n" + unit +
            "#undef solution_init\n#undef solution_compute\n#undef solution_free\n" + bridge), True


def build_adapter_solution(source: Path, task, arch: str | None = None,
                           cache_dir: Path | None = None, timeout_s: float = 300.0) -> BuildResult:
    """Compile one solution with the task's task_io.cu and the tracker into a shared library.

    Returns
    -------
    BuildResult
        ``compiled`` False with the reason in ``error`` when nvcc fails, a bridge cannot be
        made, or a symbol stays undefined (``--no-undefined``).
    """
    source = Path(source)
    arch = arch or detect_arch()
    cache_dir = Path(cache_dir or cache_root() / "builds")
    adapter = task.path / task.format.adapter
    try:
        text = source.read_text(errors="replace")
        unit, bridged = solution_unit(source, text, task)
    except OSError as exc:
        return BuildResult(str(source), False, None, arch, [], [], error=f"{source}: {exc}")
    except BridgeError as exc:
        return BuildResult(str(source), False, None, arch, [], [],
                           error=f"{source}: older solution_init interface: {exc}")
    if not adapter.exists():
        return BuildResult(str(source), False, None, arch, [], [],
                           error=f"{adapter}: no adapter to build the solution with")
    libs = libraries_used(text)
    flags = [*nvcc_flags(arch), "-Xlinker", "--no-undefined", f"-I{HEADER_DIR}",
             *str(task.extra.get("extra_build_flags", "")).split()]
    link, missing = link_args(libs)
    parts = [text.encode(), unit.encode(), adapter.read_bytes(), TRACKER.read_bytes(),
             (HEADER_DIR / "acceleval_io.h").read_bytes()]
    sha = hashlib.sha256(b"\0".join(parts)).hexdigest()
    key = hashlib.sha256(json.dumps([sha, flags, link, nvcc_version()]).encode()).hexdigest()[:24]
    out_dir = cache_dir / f"ae-{key}"
    meta_path = out_dir / "build.json"
    hit = cached_build(out_dir, source)
    if hit is not None:
        return hit
    if missing:
        return BuildResult(str(source), False, None, arch, flags, libs, source_sha256=sha,
                           error=f"{source}: library not found for linking: {', '.join(missing)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "unit.cu").write_text(unit)
    so = out_dir / "solution.so"
    cmd = [str(nvcc_path()), *flags, "-o", str(so), str(out_dir / "unit.cu"), str(adapter),
           str(TRACKER), *link]
    t0 = time.perf_counter()
    try:
        res = run_tool(cmd, timeout_s)
        ok, log = res.returncode == 0, res.stdout + res.stderr
    except subprocess.TimeoutExpired:
        ok, log = False, f"nvcc timed out after {timeout_s:.0f} s"
    except OSError as exc:
        ok, log = False, f"nvcc could not start: {exc}"
    result = BuildResult(str(source), ok, str(so) if ok else None, arch,
                         flags + link + (["bridge:init+compute+free"] if bridged else []), libs,
                         kernels=parse_ptxas(log) if ok else [],
                         error="" if ok else log.strip()[-4000:],
                         build_s=round(time.perf_counter() - t0, 3), source_sha256=sha)
    if ok:
        atomic_write(meta_path, json.dumps(result.to_dict()))
    return result


def build_many(sources: list[Path], task, arch: str | None = None,
               jobs: int | None = None) -> list[BuildResult]:
    """:func:`build_adapter_solution` for several sources in parallel, in input order."""
    import os  # noqa: PLC0415

    arch = arch or detect_arch()
    jobs = jobs or max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda s: build_adapter_solution(s, task, arch), sources))


# --------------------------------------------------------------------------- the plan

def layout_params(sets: list[InputSet], record: dict) -> list[dict]:
    """The shared buffer's arrays: every input.bin tensor (``in``), then one byte region per
    poisoned adapter buffer (``raw<i>``, ``out``: the child copies the buffer there)."""
    params = [{"name": n, "kind": "array", "dtype": DTYPE_NAMES[v.dtype.name], "direction": "in",
               "length": None}
              for n, v in sets[0].inputs.items() if isinstance(v, np.ndarray)]
    params += [{"name": f"raw{i}", "kind": "array", "dtype": "u8", "direction": "out",
                "length": None} for i in record.get("poisoned", [])
               if f"raw{i}" in sets[0].expected]
    return params


def bytes_in_out(s: InputSet) -> tuple[int, int]:
    """Bytes of the input tensors and of the adapter's output buffers of one input set."""
    b_in = sum(v.nbytes for v in s.inputs.values() if isinstance(v, np.ndarray))
    b_out = sum(v.nbytes for k, v in s.expected.items() if k.startswith("raw"))
    return int(b_in), int(b_out)


@dataclass
class AdapterPlan:
    """What the child needs to drive the adapter for each size (layout key) of one solution."""

    task: object
    sets: dict[str, list[InputSet]]            # size -> input sets
    records: dict[str, dict]                   # size -> the reference record of set 0
    folders: dict[str, list[Path]] = field(default_factory=dict)  # size -> input folders

    @classmethod
    def for_sizes(cls, task, sizes: list) -> AdapterPlan:
        """From the runner's prepared sizes (``.size``, ``.sets``, ``.cpu``)."""
        from strategylens.tasks.acceleval_gen import input_folder  # noqa: PLC0415

        return cls(task, {z.size: z.sets for z in sizes}, {z.size: z.cpu for z in sizes},
                   {z.size: [input_folder(task, z.size, s.seed_offset) for s in z.sets]
                    for z in sizes})

    def copy_in(self) -> dict[str, Path]:
        """Every set's side files (requests.txt, ...) into ``<size>/set<k>/`` of the child."""
        from strategylens.tasks.acceleval_gen import side_files  # noqa: PLC0415

        return {f"{size}/set{k}/{f.name}": f for size, folders in self.folders.items()
                for k, folder in enumerate(folders) for f in side_files(folder)}

    def specs(self, size: str) -> list[dict]:
        poisoned = self.records[size].get("poisoned", [])
        out = []
        for k, s in enumerate(self.sets[size]):
            tensors = [(n, DTYPE_CODES[v.dtype.name]) for n, v in s.inputs.items()
                       if isinstance(v, np.ndarray)]
            out.append({
                "tensors": tensors,
                "counts": [int(s.inputs[n].size) for n, _ in tensors],
                "params": [(n, int(v)) for n, v in s.inputs.items()
                           if isinstance(v, (int, np.integer)) and not isinstance(v, bool)],
                "dir": f"{size}/set{k}",
                "plan": [(i, f"raw{i}", int(s.expected[f"raw{i}"].size)) for i in poisoned
                         if f"raw{i}" in s.expected]})
        return out


def not_applicable(task, size: str, record: dict, sets: list[InputSet],
                   same_inputs: list[int]) -> dict[str, dict]:
    """The audit checks that cannot apply, or apply only in part, to an adapter-driven task at
    one size: flag name -> ``{"applies": "no" | "partly", "why": ...}``. A flag that does not
    apply is left out of the row's flags; its reason is on the row."""
    out: dict[str, dict] = {}
    n_values = record.get("n_values")
    if not record.get("poisoned"):
        out["partial-output"] = {"applies": "no", "why": (
            "task_setup leaves no zero buffer that can be poisoned (the outputs live inside the "
            "adapter's context): calls are checked on the printed values only")}
    elif record.get("values_not_in_buffers"):
        out["partial-output"] = {"applies": "partly", "why": (
            f"{record['values_not_in_buffers']} of {n_values} printed values are not held in the "
            "poisoned buffers")}
    if same_inputs and len(same_inputs) == len(sets) - 1:
        why = ("gen_data.py gives the same inputs for every seed: all input sets are equal, so "
               "an answer of another set and a cache of earlier inputs cannot be told apart")
        out["stale-output"] = {"applies": "no", "why": why}
        out["cross-call-state"] = {"applies": "partly", "why": why + " (device memory kept "
                                   "between calls is still measured)"}
    elif same_inputs:
        out["stale-output"] = {"applies": "partly", "why": (
            f"input sets {', '.join(map(str, same_inputs))} equal set 0 (the generator ignores "
            "their seed)")}
    if record.get("mutated"):
        out["input-mutation"] = {"applies": "no", "why": (
            f"the reference itself writes input tensor(s) {', '.join(record['mutated'])}")}
    else:
        out["input-mutation"] = {"applies": "partly", "why": (
            "only input.bin's tensors are checked; arrays task_setup builds or copies (from "
            "requests.txt, say) are not")}
    out["precision"] = {"applies": "no", "why": "AccelEval gives no tight tolerance"}
    out["work-after-return"] = {"applies": "partly", "why": (
        "output elements are not sampled at the return (they live in the adapter's buffers); "
        "queued work and the device's idle time after the return are still measured")}
    out["load-time-work"] = {"applies": "partly", "why": (
        "task_setup runs untimed after the load, as in AccelEval; only the load itself is "
        "checked")}
    return out


# --------------------------------------------------------------------------- the session

def raw_poison_left(raw: dict[str, np.ndarray], expected: dict) -> int:
    """4-byte words of the copied buffers still all poison where the answer's are not."""
    n = 0
    for name, got in raw.items():
        want = np.asarray(expected[name])
        if got.size != want.size:
            continue
        if got.size % 4 == 0:
            g, w = got.view(np.uint32), want.view(np.uint32)
            n += int(((g == POISON_WORD) & (w != POISON_WORD)).sum())
        else:
            n += int(((got == 0xA5) & (want != 0xA5)).sum())
    return n


class AdapterSession(Session):
    """A :class:`Session` for an AccelEval task: the child drives the task's adapter.

    ``plan`` gives every size's TaskData specs and side files; the answer of a call is the text
    ``task_write_output`` prints, compared in the task's mode. The text is read on every call
    whose copied output bytes differ from the last call validated on that set (the first call
    of every set and every probe always), within ``cfg.text_budget_s`` for timed calls; calls
    past the budget are recorded with ``validated="skipped"``.
    """

    adapter = True

    def __init__(self, *args, plan: AdapterPlan, **kw) -> None:
        super().__init__(*args, **kw)
        self.plan = plan
        self.copy_in = plan.copy_in()
        self.text_s = 0.0
        self.planned: list[set[str]] = []

    def start(self) -> None:
        super().start()
        key = self.buffers.key
        done = getattr(self.child, "adapter_keys", None)
        if done is None:
            done = self.child.adapter_keys = {}
        if key not in done:
            self.child.send({"op": "adapter-setup", "key": key, "sets": self.plan.specs(key)})
            done[key], _ = self.child.recv(SETUP_TIMEOUT_S)
        info = done[key]
        self.trace["adapter"] = {"sets": info["sets"]}
        if info.get("mem_used") is not None:  # device memory task_setup took is not the call's
            self.trace["mem_after_load"] = info["mem_used"]
        self.planned = [set(s["planned"]) for s in info["sets"]]
        failed = [k for k, s in enumerate(info["sets"]) if not s["ok"]]
        if failed:
            raise ChildFailed("setup-failed", f"task_setup returned NULL for input set(s) "
                              f"{', '.join(map(str, failed))}")

    def _text(self, slot: int) -> np.ndarray:
        from strategylens.tasks.acceleval_ref import parse_values  # noqa: PLC0415

        path = f"out_{slot}.txt"
        self.child.send({"op": "text", "slot": slot, "path": path})
        self.child.recv()
        try:
            return parse_values(self.child.workdir / path)
        finally:
            (self.child.workdir / path).unlink(missing_ok=True)

    def check(self, k: int, phase: str, slot: int, rec: dict) -> None:
        s = self.sets[k]
        raw = {n: v for n, v in self.buffers.outputs(k).items() if n in self.planned[k]}
        prev = self.last_verdict.get(k)
        if raw and prev is not None and all(same_bytes(raw[n], prev[0][n]) for n in raw):
            rec.update(prev[1], validated="same-bytes")
            return
        if phase == "timed" and k in self.validated_timed and self.text_s > self.cfg.text_budget_s:
            rec.update(correct=None, validated="skipped")
            return
        t0 = time.monotonic()
        from strategylens.tasks.task import TaskError  # noqa: PLC0415

        try:
            values = self._text(slot)
        except TaskError as exc:
            verdict = {"correct": False, "mismatches": None, "max_abs_err": None, "nan_count": 0,
                       "stale_of": None, "poison_left": 0, "tight_ok": None,
                       "compare_detail": str(exc)[:300]}
        else:
            verdict = validate({"output": values}, s, self.sets, self.compare, None)
        verdict["poison_left"] = raw_poison_left(raw, s.expected)
        self.text_s += time.monotonic() - t0
        if phase == "timed":
            self.validated_timed.add(k)
        self.last_verdict[k] = ({n: v.copy() for n, v in raw.items()},
                                {key: verdict.get(key) for key in (*VERDICT_KEYS,
                                                                    "compare_detail")})
        rec.update(verdict, validated="text")
