"""The AccelEval task format: a checkout's ``tasks/<id>/`` folders (``task.json``,
``cpu_reference.c``, ``gen_data.py``, the ``task_io.cu`` / ``task_io_cpu.c`` adapters) loaded into
the same :class:`~strategylens.tasks.task.Task`.

The id is the folder name (AccelEval's harness and run folders address tasks by it; one folder's
``task.json`` names another ``task_id``, kept in ``task.extra``). The domain comes from the
checkout's README table of six categories, else from ``category``. The signature is read from
``solution_compute`` in cpu_reference.c. Inputs are made by the task's own ``gen_data.py`` in
strategylens's cache (:mod:`strategylens.tasks.acceleval_gen`), expected outputs by the task's C
reference driven through its ``task_io_cpu.c`` adapter (:mod:`strategylens.tasks.acceleval_ref`).
What AccelEval compares is the text ``task_write_output`` prints: the task's single output
``output`` is those values, in order.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import struct
from pathlib import Path

import numpy as np

from strategylens.dtypes import from_c_name
from strategylens.tasks.own import parse_signature, require
from strategylens.tasks.task import DOMAINS, Correctness, Param, Task, TaskError, TaskFormat

ACCELEVAL_ENV = "STRATEGYLENS_ACCELEVAL"
ACCELEVAL_MAGICS = (b"ORBENCH\0", b"ACCELEVA")
OUTPUT = "output"  # the one compared output: the values task_write_output prints
_HEADER = struct.Struct("<8siiiiq")
_TENSOR = struct.Struct("<32siiqqq")
_PARAM = struct.Struct("<32sq")
_DTYPE_CODES = {0: np.int32, 1: np.float32, 2: np.float64}
DTYPE_NAMES = {0: "i32", 1: "f32", 2: "f64"}
# AccelEval's validate.py falls back to these when task.json gives no tolerance.
DEFAULT_ATOL = DEFAULT_RTOL = 0.01
# The README's six categories (first word of the row) and task.json categories, as domains.
_README_DOMAINS = {"hpc": "hpc", "scientific": "scientific-simulation", "graph": "graph",
                   "spatial": "spatial-temporal", "spatial–temporal": "spatial-temporal",
                   "financial": "finance", "operations": "operations-research"}
_CATEGORY_DOMAINS = {
    "hpc": "hpc", "sparse_linear_algebra": "hpc", "cfd_solver": "hpc",
    "scientific": "scientific-simulation", "scientific-simulation": "scientific-simulation",
    "scientific_simulation": "scientific-simulation", "fluid_simulation": "scientific-simulation",
    "graph": "graph", "graph_analytics": "graph", "graph_traversal": "graph",
    "spatial": "spatial-temporal", "spatial-temporal": "spatial-temporal",
    "spatial_temporal": "spatial-temporal", "spatial_clustering": "spatial-temporal",
    "spatial_distance": "spatial-temporal", "time_series_distance": "spatial-temporal",
    "computational_geometry": "spatial-temporal", "bioinformatics": "spatial-temporal",
    "automata_simulation": "spatial-temporal",
    "finance": "finance", "financial_computing": "finance", "financial engineering": "finance",
    "operations-research": "operations-research", "operations_research": "operations-research",
    "or": "operations-research", "optimization": "operations-research",
    "dynamic_programming": "operations-research", "dynamic programming": "operations-research",
    "linear_programming": "operations-research", "transportation": "operations-research",
    "stochastic_simulation": "operations-research",
}
SIDE_FILES = ("cpu_reference.c", "task_io.cu", "task_io_cpu.c", "gen_data.py", "gpu_baseline.cu")


def read_acceleval_input(path: Path | str) -> dict:
    """Read an AccelEval ``input.bin`` into name -> 1-D numpy array (tensors) or int (params).

    Accepts both magics (``ORBENCH\\0`` and ``ACCELEVA``); little-endian header ``<8s i i i i q>``,
    tensor descriptors ``<32s i i q q q>`` with absolute offsets, params ``<32s q>``.

    Raises
    ------
    TaskError
        On a wrong magic or version, a truncated file, a bad dtype code, an inconsistent
        descriptor or a duplicate name; the message names the file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TaskError(f"{path}: cannot read: {exc}") from exc
    if len(data) < _HEADER.size:
        raise TaskError(f"{path}: truncated: {len(data)} bytes, header needs {_HEADER.size}")
    magic, version, ntensors, nparams, data_offset, _ = _HEADER.unpack_from(data, 0)
    if magic not in ACCELEVAL_MAGICS:
        raise TaskError(f"{path}: bad magic {magic!r} (want ORBENCH\\0 or ACCELEVA)")
    if version != 1:
        raise TaskError(f"{path}: unsupported version {version}")
    if ntensors < 0 or nparams < 0:
        raise TaskError(f"{path}: negative counts ({ntensors} tensors, {nparams} params)")
    meta_end = _HEADER.size + ntensors * _TENSOR.size + nparams * _PARAM.size
    if meta_end > len(data):
        raise TaskError(f"{path}: truncated: descriptors end at byte {meta_end}, file has "
                        f"{len(data)}")
    if data_offset < meta_end:
        raise TaskError(f"{path}: data_offset {data_offset} overlaps the descriptors")
    out: dict = {}
    pos = _HEADER.size
    for i in range(ntensors):
        raw_name, code, _, count, offset, nbytes = _TENSOR.unpack_from(data, pos)
        pos += _TENSOR.size
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "replace")
        if code not in _DTYPE_CODES:
            raise TaskError(f"{path}: tensor {i} ({name!r}): unknown dtype code {code}")
        dt = np.dtype(_DTYPE_CODES[code]).newbyteorder("<")
        if count < 0 or nbytes != count * dt.itemsize:
            raise TaskError(f"{path}: tensor {name!r}: size_bytes {nbytes} != count {count} x "
                            f"{dt.itemsize}")
        if offset < data_offset or offset + nbytes > len(data):
            raise TaskError(f"{path}: truncated: tensor {name!r} needs bytes {offset}.."
                            f"{offset + nbytes}, file has {len(data)}")
        if name in out:
            raise TaskError(f"{path}: duplicate name {name!r}")
        out[name] = np.frombuffer(data, dtype=dt, count=count, offset=offset).astype(
            _DTYPE_CODES[code])
    for _ in range(nparams):
        raw_name, value = _PARAM.unpack_from(data, pos)
        pos += _PARAM.size
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "replace")
        if name in out:
            raise TaskError(f"{path}: duplicate name {name!r}")
        out[name] = int(value)
    return out


def input_magic(path: Path | str) -> bytes:
    """The first eight bytes of an input.bin (which of the two magics wrote it)."""
    with open(path, "rb") as fh:
        return fh.read(8)


# --------------------------------------------------------------------------- checkouts

def checkout_root(path: Path | str) -> Path:
    """The checkout a path names: the folder holding ``tasks/`` and ``framework/``, given either
    that folder or its ``tasks/``.

    Raises
    ------
    TaskError
        When the path is neither.
    """
    p = Path(path).expanduser().resolve()
    for cand in (p, p.parent):
        if (cand / "tasks").is_dir() and (cand / "framework").is_dir():
            return cand
    raise TaskError(f"{path}: not an AccelEval checkout (want a folder holding tasks/ and "
                    "framework/, or its tasks/ folder)")


def checkout_from_env(given: Path | str | None = None) -> Path | None:
    """``given``, else ``$STRATEGYLENS_ACCELEVAL``, as a checkout; None when neither is set."""
    value = given if given else os.environ.get(ACCELEVAL_ENV)
    return checkout_root(value) if value else None


def checkout_of(folder: Path) -> Path | None:
    """The checkout a task folder lies in (``<checkout>/tasks/<id>``), or None."""
    parent = folder.resolve().parent
    if parent.name == "tasks" and (parent.parent / "framework").is_dir():
        return parent.parent
    return None


@functools.lru_cache(maxsize=8)
def readme_domains(readme: Path) -> dict[str, str]:
    """Task id -> domain from the README's category table (rows ``| <Category> | n | `id`,
    ... |``); empty when the file or the table is missing."""
    try:
        text = readme.read_text(errors="replace")
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0]:
            continue
        domain = _README_DOMAINS.get(cells[0].split()[0].lower())
        ids = re.findall(r"`([A-Za-z0-9_]+)`", cells[-1])
        if domain and ids and cells[1].isdigit():
            for tid in ids:
                out[tid] = domain
    return out


def gen_sizes(gen_py: Path) -> dict | None:
    """The module-level ``SIZES`` dict of a gen_data.py, read without running it (None when
    there is none or it is not a literal)."""
    try:
        tree = ast.parse(gen_py.read_text(errors="replace"))
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "SIZES"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _strip_c_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


def reference_signature(text: str) -> str | None:
    """The ``void solution_compute(...)`` prototype of a C reference, one line."""
    m = re.search(r"void\s+solution_compute\s*\([^)]*\)", _strip_c_comments(text))
    return " ".join(m.group(0).split()) if m else None


class AccelEvalFormat(TaskFormat):
    name = "acceleval"
    marker = "task.json"
    reference_names = ("cpu_reference.c",)
    content_files = ("task.json", "cpu_reference.c", "task_io_cpu.c", "task_io.cu",
                     "gen_data.py")
    lengths_known = False
    adapter = "task_io.cu"  # solutions are built with this adapter and driven through it

    def load(self, folder: Path) -> Task:
        """Map an AccelEval task folder onto :class:`Task`.

        Raises
        ------
        TaskError
            When task.json is missing, not JSON, or lacks ``task_id``.
        """
        file = folder / "task.json"
        try:
            doc = json.loads(file.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise TaskError(f"{file}: cannot read: {exc}") from exc
        require(isinstance(doc, dict), file, "<top>", "must be an object")
        require(isinstance(doc.get("task_id"), str), file, "task_id", "missing")
        folder = folder.resolve()
        unknown = ["params.length", "description", "seed"]
        notes: list[str] = []
        checkout = checkout_of(folder)
        domain = readme_domains(checkout / "README.md").get(folder.name) if checkout else None
        category = str(doc.get("category", "")).lower()
        domain = domain or _CATEGORY_DOMAINS.get(category, category or "unknown")
        if domain not in DOMAINS:
            unknown.append("domain")
        sizes = doc.get("input_sizes") or {}
        require(isinstance(sizes, dict), file, "input_sizes", "must be an object")
        correctness, defaulted = _correctness(doc.get("correctness") or {}, file)
        if defaulted:
            notes.append(f"task.json gives no {' or '.join(defaulted)}: AccelEval's default "
                         f"{DEFAULT_ATOL:g} is used")
        if doc["task_id"] != folder.name:
            notes.append(f"task.json names task_id {doc['task_id']!r}; the id is the folder "
                         f"name {folder.name!r}, as AccelEval's harness and run folders use")
        signature, params = None, []
        ref = folder / "cpu_reference.c"
        if ref.exists():
            signature = reference_signature(ref.read_text(errors="replace"))
            if signature:
                try:
                    params = _signature_params(signature, unknown)
                except ValueError:
                    params = []
        if signature is None:
            unknown.extend(["signature", "params"])
        # The sizes are what gen_data.py makes (its SIZES), where task.json says otherwise.
        made = gen_sizes(folder / "gen_data.py")
        size_map = {s: dict(v) for s, v in sizes.items() if isinstance(v, dict)}
        for s, v in (made or {}).items():
            if not isinstance(v, dict) or s not in size_map:
                continue
            diff = sorted(k for k in set(v) & set(size_map[s])
                          if v[k] is not None and v[k] != size_map[s][k])
            if diff:
                notes.append(f"size {s}: gen_data.py makes {_show(v, diff)}, task.json says "
                             f"{_show(size_map[s], diff)}; the sizes shown are gen_data.py's")
                size_map[s].update({k: v[k] for k in diff})
        extra = {"task_json_id": doc["task_id"], "category": doc.get("category"),
                 "timing": doc.get("timing") or {}, "gen_sizes": made,
                 "extra_build_flags": str(doc.get("extra_build_flags") or ""),
                 "interface_mode": doc.get("interface_mode"),
                 "files": [f for f in SIDE_FILES if (folder / f).exists()],
                 "checkout": str(checkout) if checkout else None, "notes": notes}
        missing = [f for f in ("gen_data.py", "task_io_cpu.c", "task_io.cu", "cpu_reference.c")
                   if f not in extra["files"]]
        if missing:
            notes.append(f"missing {', '.join(missing)}")
        return Task(id=folder.name, name=str(doc.get("name", doc["task_id"])), domain=domain,
                    summary=str(doc.get("name", "")), description="", signature=signature,
                    params=params, sizes=size_map, seed=0, correctness=correctness,
                    path=folder, unknown=unknown, extra=extra, format=self)

    def generate(self, task: Task, size: str, seed_offset: int) -> dict:
        """Inputs of (size, seed offset): the task's gen_data.py run in the cache (or, in a
        folder without gen_data.py, the fixed ``data/<size>/input.bin``), read from input.bin;
        float scalars AccelEval stores as scaled integers (``eps_x10000``) are scaled back."""
        if (task.path / "gen_data.py").exists():
            from strategylens.tasks.acceleval_gen import input_folder  # noqa: PLC0415

            path = input_folder(task, size, seed_offset) / "input.bin"
        elif seed_offset:
            raise TaskError(f"{task.path}: no gen_data.py: the inputs are the fixed files "
                            f"data/{size}/input.bin; seed_offset must be 0")
        else:
            path = task.path / "data" / size / "input.bin"
        inputs = read_acceleval_input(path)
        for k, v in task.sizes[size].items():
            inputs.setdefault(k, v)
        for p in task.params:
            if p.kind == "scalar" and p.name not in inputs:
                for key, value in list(inputs.items()):
                    m = re.fullmatch(re.escape(p.name) + r"_x(\d+)", key)
                    if m and not isinstance(value, np.ndarray):
                        inputs[p.name] = value / int(m.group(1))
        return inputs

    def run_reference(self, task: Task, size: str, trials: int, seed_offset: int,
                      remeasure: bool, cpu: int | None):
        """The C reference through the task's task_io_cpu.c (see acceleval_ref)."""
        from strategylens.tasks.acceleval_ref import run_reference  # noqa: PLC0415

        return run_reference(task, size, trials=trials, seed_offset=seed_offset,
                             remeasure=remeasure, cpu=cpu)


ACCELEVAL = AccelEvalFormat()


def _show(d: dict, keys: list[str]) -> str:
    return ", ".join(f"{k}={d.get(k)}" for k in keys)


def _correctness(corr: dict, file: Path) -> tuple[Correctness, list[str]]:
    raw = str(corr.get("mode", "numerical"))
    mode = {"numerical": "numeric", "numeric": "numeric", "exact": "exact"}.get(raw)
    require(mode is not None, file, "correctness.mode",
            f"{raw!r} is not exact, numeric or numerical")
    defaulted = [k for k in ("atol", "rtol") if corr.get(k) is None] if mode == "numeric" else []
    atol = float(corr["atol"]) if corr.get("atol") is not None else DEFAULT_ATOL
    rtol = float(corr["rtol"]) if corr.get("rtol") is not None else DEFAULT_RTOL
    if mode == "exact":
        atol = rtol = 0.0
    return Correctness(mode=mode, atol=atol, rtol=rtol, outputs=[OUTPUT]), defaulted


def _signature_params(signature: str, unknown: list[str]) -> list[Param]:
    params = []
    for name, ctype, is_ptr, is_const in parse_signature(signature):
        dtype = from_c_name(ctype)
        if dtype is None:
            unknown.append(f"params.{name}.dtype")
            dtype = "u8"
        params.append(Param(name, "array" if is_ptr else "scalar", dtype,
                            ("in" if is_const else "out") if is_ptr else "in", None))
    return params


def load_acceleval_task(path: Path | str) -> Task:
    """An AccelEval task folder as a :class:`Task` (see :class:`AccelEvalFormat`)."""
    return ACCELEVAL.load(Path(path))
