"""Task suite: load task folders, generate inputs, run the C reference, compare outputs.

A task is a folder `tasks/<id>/` holding `task.yaml`, `reference.c`, `gen.py` and `solutions/`
(see docs/task-format.md). AccelEval task folders (`task.json`, `data/<size>/input.bin`) load into
the same :class:`Task` form through :func:`load_acceleval_task`.
"""

from __future__ import annotations

import ast
import ctypes
import datetime as _dt
import hashlib
import importlib.util
import json
import operator
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from strategylens import REPO_ROOT, __version__
from strategylens.provenance import cpu_model, git_commit

TASKS_DIR = REPO_ROOT / "tasks"
CACHE_DIR = Path(os.environ.get("STRATEGYLENS_CACHE") or Path.home() / ".cache" / "strategylens")

DOMAINS = ("hpc", "scientific-simulation", "graph", "spatial-temporal", "finance",
           "operations-research")
SIZES = ("small", "medium", "large")
MODES = ("exact", "numeric", "label-permutation", "set")

DTYPES = {"i8": np.int8, "u8": np.uint8, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
          "f32": np.float32, "f64": np.float64}
_CTYPES = {"i8": ctypes.c_int8, "u8": ctypes.c_uint8, "i32": ctypes.c_int32,
           "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "f32": ctypes.c_float,
           "f64": ctypes.c_double}
# C spellings accepted in a signature for each dtype.
_C_NAMES = {"i8": {"char", "signed char", "int8_t"}, "u8": {"unsigned char", "uint8_t"},
            "i32": {"int", "int32_t"}, "u32": {"unsigned int", "unsigned", "uint32_t"},
            "i64": {"long long", "int64_t", "long"}, "f32": {"float"}, "f64": {"double"}}
# Written into every fresh output element so an unwritten element cannot pass.
POISON_INT = {"i8": 0x7F, "u8": 0x7F, "i32": 0x7F7F7F7F, "u32": 0x7F7F7F7F,
              "i64": 0x7F7F7F7F7F7F7F7F}

GCC_FLAGS = ["-O2", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC"]
CHECKSUM_DIGITS = 4  # significant digits of float outputs in the committed small-size checksum


class TaskError(ValueError):
    """A task folder, task file or input file is invalid; the message names the file."""


# --------------------------------------------------------------------------- model

@dataclass
class Param:
    """One parameter of the entry point, in signature order.

    `kind` is ``array`` or ``scalar``; `direction` is ``in``, ``out`` or ``inout`` (scalars: ``in``);
    `length` is an arithmetic expression over scalars and generator extras (arrays only; None
    where unknown, as for AccelEval tasks).
    """

    name: str
    kind: str
    dtype: str
    direction: str = "in"
    length: str | None = None


@dataclass
class Correctness:
    """How outputs are compared; also readable as a dict (``task.correctness["mode"]``)."""

    mode: str
    atol: float = 0.0
    rtol: float = 0.0
    tight: dict = field(default_factory=dict)
    outputs: list[str] | None = None
    noise_label: int | None = None

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


@dataclass
class Task:
    """A loaded task. `path` is its folder; `source` is ``strategylens`` or ``acceleval``."""

    id: str
    name: str
    domain: str
    summary: str
    description: str
    signature: str | None
    params: list[Param]
    sizes: dict[str, dict]
    seed: int
    correctness: Correctness
    path: Path
    source: str = "strategylens"
    unknown: list[str] = field(default_factory=list)  # fields an AccelEval folder did not give

    # ----------------------------------------------------------------- parameters
    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"task {self.id}: no parameter {name!r}")

    @property
    def output_names(self) -> list[str]:
        """Names of the `out` and `inout` arrays, in signature order."""
        return [p.name for p in self.params if p.kind == "array" and p.direction in ("out", "inout")]

    @property
    def compared_outputs(self) -> list[str]:
        return list(self.correctness.outputs or self.output_names)

    # ----------------------------------------------------------------- inputs
    def generate(self, size: str, seed_offset: int = 0) -> dict:
        """Inputs for `size`: every in/inout array, every scalar, and generator extras.

        The seed is ``task.seed + seed_offset``. Scalars the generator does not return come
        from the size's parameters.
        """
        if size not in self.sizes:
            raise TaskError(f"{self.path}: no size {size!r} (have {', '.join(self.sizes)})")
        params = dict(self.sizes[size])
        if self.source == "acceleval":
            if seed_offset:
                raise TaskError(f"{self.path}: AccelEval inputs are fixed files; seed_offset "
                                "must be 0")
            inputs = read_acceleval_input(self.path / "data" / size / "input.bin")
            for k, v in params.items():
                inputs.setdefault(k, v)
            for p in self.params:  # AccelEval stores float scalars as scaled ints: eps_x10000
                if p.kind == "scalar" and p.name not in inputs:
                    for key, value in list(inputs.items()):
                        m = re.fullmatch(re.escape(p.name) + r"_x(\d+)", key)
                        if m and not isinstance(value, np.ndarray):
                            inputs[p.name] = value / int(m.group(1))
            return inputs
        gen_path = self.path / "gen.py"
        spec = importlib.util.spec_from_file_location(f"_strategylens_gen_{self.id}", gen_path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            inputs = module.generate(dict(params), int(self.seed) + int(seed_offset))
        except Exception as exc:
            raise TaskError(f"{gen_path}: generate failed: {exc!r}") from exc
        if not isinstance(inputs, dict):
            raise TaskError(f"{gen_path}: generate must return a dict, got {type(inputs).__name__}")
        for k, v in params.items():
            inputs.setdefault(k, v)
        for p in self.params:
            if p.kind == "scalar":
                if p.name not in inputs:
                    raise TaskError(f"{gen_path}: scalar {p.name!r} neither generated nor in "
                                    f"sizes.{size}")
                kind = np.dtype(DTYPES[p.dtype]).kind
                inputs[p.name] = float(inputs[p.name]) if kind == "f" else int(inputs[p.name])
        for p in self.params:
            if p.kind == "array" and p.direction in ("in", "inout"):
                if p.name not in inputs:
                    raise TaskError(f"{gen_path}: array {p.name!r} not generated")
                self._check_array(p, inputs[p.name], inputs, str(gen_path))
        return inputs

    def array_length(self, param: Param | str, inputs: dict) -> int:
        """Evaluate the length expression of array `param` over the scalars in `inputs`."""
        p = self.param(param) if isinstance(param, str) else param
        if p.length is None:
            arr = inputs.get(p.name)
            if isinstance(arr, np.ndarray):
                return int(arr.size)
            raise TaskError(f"{self.path}: length of {p.name!r} unknown")
        names = {k: v for k, v in inputs.items() if not isinstance(v, np.ndarray)}
        try:
            return int(_eval_length(p.length, names))
        except (KeyError, ValueError, ZeroDivisionError) as exc:
            raise TaskError(f"{self.path / 'task.yaml'}: length {p.length!r} of {p.name!r}: "
                            f"{exc}") from exc

    def _check_array(self, p: Param, arr: Any, inputs: dict, where: str) -> None:
        if not isinstance(arr, np.ndarray):
            raise TaskError(f"{where}: {p.name!r} is {type(arr).__name__}, not a numpy array")
        if arr.dtype != np.dtype(DTYPES[p.dtype]):
            raise TaskError(f"{where}: {p.name!r} has dtype {arr.dtype}, task says {p.dtype}")
        if arr.ndim != 1 or not arr.flags.c_contiguous:
            raise TaskError(f"{where}: {p.name!r} must be a 1-D C-contiguous array")
        want = self.array_length(p, inputs)
        if arr.size != want:
            raise TaskError(f"{where}: {p.name!r} has {arr.size} elements, length {p.length!r} "
                            f"= {want}")

    def new_outputs(self, inputs: dict, poison: bool = True) -> dict[str, np.ndarray]:
        """Fresh output arrays: `out` filled with poison (NaN, 0x7F7F7F7F) or zeros; `inout`
        copied from the inputs."""
        outs = {}
        for p in self.params:
            if p.kind != "array" or p.direction == "in":
                continue
            if p.direction == "inout":
                outs[p.name] = np.array(inputs[p.name], copy=True)
                continue
            n = self.array_length(p, inputs)
            dt = np.dtype(DTYPES[p.dtype])
            if not poison:
                outs[p.name] = np.zeros(n, dtype=dt)
            elif dt.kind == "f":
                outs[p.name] = np.full(n, np.nan, dtype=dt)
            else:
                outs[p.name] = np.full(n, POISON_INT[p.dtype], dtype=dt)
        return outs

    # ----------------------------------------------------------------- calling
    def bind(self, cfunc: Callable) -> Callable:
        """Set ctypes argtypes (pointers for arrays) and restype (void) on `cfunc`."""
        cfunc.argtypes = [ctypes.c_void_p if p.kind == "array" else _CTYPES[p.dtype]
                          for p in self.params]
        cfunc.restype = None
        return cfunc

    def call(self, cfunc: Callable, inputs: dict, outputs: dict) -> None:
        """Call a bound entry point; arrays are checked for dtype and length first."""
        args = []
        for p in self.params:
            if p.kind == "scalar":
                args.append(inputs[p.name])
                continue
            arr = outputs[p.name] if p.direction in ("out", "inout") else inputs[p.name]
            self._check_array(p, arr, inputs, f"task {self.id}")
            args.append(arr.ctypes.data)
        cfunc(*args)

    def bytes_in_out(self, size: str) -> tuple[int, int]:
        """Bytes of array state moved in (in + inout) and out (out + inout) for `size`.

        Generates the inputs once and caches the answer under CACHE_DIR.
        """
        key = f"{self.id}-{size}-{self.content_hash()[:16]}"
        cache = CACHE_DIR / "bytes" / f"{key}.json"
        if cache.exists():
            b_in, b_out = json.loads(cache.read_text())
            return int(b_in), int(b_out)
        inputs = dict(self.sizes[size])  # lengths over size parameters need no generation
        try:
            for p in self.params:
                if p.kind == "array":
                    _eval_length(p.length, inputs)
        except (KeyError, ValueError, TypeError):
            inputs = self.generate(size)
        b_in = b_out = 0
        for p in self.params:
            if p.kind != "array":
                continue
            nbytes = self.array_length(p, inputs) * np.dtype(DTYPES[p.dtype]).itemsize
            if p.direction in ("in", "inout"):
                b_in += nbytes
            if p.direction in ("out", "inout"):
                b_out += nbytes
        _atomic_write(cache, json.dumps([b_in, b_out]).encode())
        return b_in, b_out

    def content_hash(self) -> str:
        """SHA-256 over task.yaml, gen.py and reference.c (whichever exist)."""
        h = hashlib.sha256()
        for name in ("task.yaml", "gen.py", "reference.c", "task.json", "cpu_reference.c"):
            f = self.path / name
            if f.exists():
                h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
        return h.hexdigest()

    def summary_row(self) -> dict:
        """A plain dict for listings (JSON-friendly)."""
        return {"id": self.id, "name": self.name, "domain": self.domain,
                "summary": self.summary, "signature": self.signature,
                "sizes": self.sizes, "correctness": self.correctness.mode,
                "source": self.source, "path": str(self.path)}


# --------------------------------------------------------------------------- loading

_NAME_RE = re.compile(r"^[a-z0-9_]+$")


def _require(cond: bool, file: Path, fieldname: str, problem: str) -> None:
    if not cond:
        raise TaskError(f"{file}: field '{fieldname}': {problem}")


def parse_signature(signature: str) -> list[tuple[str, str, bool, bool]]:
    """Split a C prototype into (name, base type, is_pointer, is_const) per parameter."""
    m = re.fullmatch(r"\s*void\s+solution_compute\s*\((.*)\)\s*;?\s*", signature, re.DOTALL)
    if not m:
        raise ValueError("not of the form 'void solution_compute(...)'")
    out = []
    for part in m.group(1).split(","):
        part = " ".join(part.replace("*", " * ").split())
        pm = re.fullmatch(r"((?:const )?)([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\*?)\s*(?:const )?"
                          r"([A-Za-z_][A-Za-z0-9_]*)", part)
        if not pm:
            raise ValueError(f"cannot read parameter {part!r}")
        out.append((pm.group(4), pm.group(2).strip(), bool(pm.group(3)), bool(pm.group(1))))
    return out


def load_task(id_or_path: str | Path) -> Task:
    """Load and validate a task by id (under TASKS_DIR) or by folder / task.yaml path.

    Raises
    ------
    TaskError
        Naming the file and the field when task.yaml is missing or invalid.
    """
    path = Path(id_or_path)
    if not path.exists() and _NAME_RE.match(str(id_or_path)):
        path = TASKS_DIR / str(id_or_path)
    if path.name in ("task.yaml", "task.json"):
        path = path.parent
    if not (path / "task.yaml").exists() and (path / "task.json").exists():
        return load_acceleval_task(path)
    file = path / "task.yaml"
    if not file.exists():
        raise TaskError(f"{file}: no such task file (task id or folder {id_or_path!r})")
    try:
        doc = yaml.safe_load(file.read_text())
    except yaml.YAMLError as exc:
        raise TaskError(f"{file}: not valid YAML: {exc}") from exc
    _require(isinstance(doc, dict), file, "<top>", "must be a mapping")
    for key in ("id", "name", "domain", "summary", "description", "signature", "params", "sizes",
                "seed", "correctness"):
        _require(key in doc, file, key, "missing")
    _require(isinstance(doc["id"], str) and bool(_NAME_RE.match(doc["id"])), file, "id",
             "must match [a-z0-9_]+")
    _require(doc["id"] == path.name, file, "id", f"{doc['id']!r} differs from folder {path.name!r}")
    _require(doc["domain"] in DOMAINS, file, "domain",
             f"{doc['domain']!r} is not one of {', '.join(DOMAINS)}")
    for key in ("name", "summary", "description", "signature"):
        _require(isinstance(doc[key], str) and doc[key].strip() != "", file, key,
                 "must be a non-empty string")
    _require(isinstance(doc["seed"], int), file, "seed", "must be an integer")

    params: list[Param] = []
    _require(isinstance(doc["params"], list) and doc["params"], file, "params",
             "must be a non-empty list")
    for i, raw in enumerate(doc["params"]):
        where = f"params[{i}]"
        _require(isinstance(raw, dict), file, where, "must be a mapping")
        unknown = set(raw) - {"name", "kind", "dtype", "direction", "length"}
        _require(not unknown, file, where, f"unknown keys {sorted(unknown)}")
        _require(isinstance(raw.get("name"), str), file, f"{where}.name", "missing")
        _require(raw.get("kind") in ("array", "scalar"), file, f"{where}.kind",
                 "must be 'array' or 'scalar'")
        _require(raw.get("dtype") in DTYPES, file, f"{where}.dtype",
                 f"{raw.get('dtype')!r} is not one of {', '.join(DTYPES)}")
        direction = raw.get("direction", "in")
        _require(direction in ("in", "out", "inout"), file, f"{where}.direction",
                 "must be in, out or inout")
        _require(raw["kind"] == "array" or direction == "in", file, f"{where}.direction",
                 "a scalar is always 'in'")
        length = raw.get("length")
        if raw["kind"] == "array":
            _require(length is not None, file, f"{where}.length", "an array needs a length")
            length = str(length)
            try:
                _length_names(length)
            except ValueError as exc:
                _require(False, file, f"{where}.length", str(exc))
        params.append(Param(raw["name"], raw["kind"], raw["dtype"], direction, length))
    names = [p.name for p in params]
    _require(len(set(names)) == len(names), file, "params", "duplicate names")
    _check_signature(doc["signature"], params, file)

    sizes = doc["sizes"]
    _require(isinstance(sizes, dict) and set(sizes) == set(SIZES), file, "sizes",
             "must hold exactly small, medium and large")
    for s in SIZES:
        _require(isinstance(sizes[s], dict), file, f"sizes.{s}", "must be a mapping")

    corr = doc["correctness"]
    _require(isinstance(corr, dict), file, "correctness", "must be a mapping")
    _require(corr.get("mode") in MODES, file, "correctness.mode",
             f"{corr.get('mode')!r} is not one of {', '.join(MODES)}")
    if corr["mode"] == "numeric":
        for k in ("atol", "rtol"):
            _require(isinstance(corr.get(k), (int, float)) and corr[k] >= 0, file,
                     f"correctness.{k}", "numeric mode needs a number >= 0")
    tight = corr.get("tight") or {}
    _require(isinstance(tight, dict) and set(tight) <= {"atol", "rtol"}, file,
             "correctness.tight", "must be a mapping with atol and/or rtol")
    outputs_field = corr.get("outputs")
    out_names = [p.name for p in params if p.kind == "array" and p.direction != "in"]
    _require(bool(out_names), file, "params", "no out or inout array")
    if outputs_field is not None:
        _require(isinstance(outputs_field, list) and set(outputs_field) <= set(out_names), file,
                 "correctness.outputs", f"must list out arrays among {out_names}")
    noise = corr.get("noise_label")
    _require(noise is None or isinstance(noise, int), file, "correctness.noise_label",
             "must be an integer")
    correctness = Correctness(mode=corr["mode"], atol=float(corr.get("atol", 0.0)),
                              rtol=float(corr.get("rtol", 0.0)), tight=dict(tight),
                              outputs=outputs_field, noise_label=noise)
    return Task(id=doc["id"], name=doc["name"], domain=doc["domain"], summary=doc["summary"],
                description=doc["description"], signature=" ".join(doc["signature"].split()),
                params=params, sizes={s: dict(sizes[s]) for s in SIZES}, seed=int(doc["seed"]),
                correctness=correctness, path=path.resolve())


def _check_signature(signature: str, params: list[Param], file: Path) -> None:
    try:
        parts = parse_signature(signature)
    except ValueError as exc:
        raise TaskError(f"{file}: field 'signature': {exc}") from exc
    _require([p[0] for p in parts] == [p.name for p in params], file, "params",
             f"names {[p.name for p in params]} differ from the signature's "
             f"{[p[0] for p in parts]}")
    for (name, ctype, is_ptr, is_const), p in zip(parts, params, strict=True):
        where = f"params[{params.index(p)}]"
        _require(ctype in _C_NAMES[p.dtype], file, f"{where}.dtype",
                 f"{p.dtype} does not match C type {ctype!r} of {name}")
        _require(is_ptr == (p.kind == "array"), file, f"{where}.kind",
                 f"{p.kind} does not match {'pointer' if is_ptr else 'value'} {name}")
        if is_ptr:
            _require(is_const == (p.direction == "in"), file, f"{where}.direction",
                     f"{p.direction} does not match {'const ' if is_const else ''}pointer {name}")


def list_tasks(root: Path | str | None = None) -> list[Task]:
    """Every task folder under `root` (default TASKS_DIR), sorted by domain then id.

    A folder whose task.yaml is invalid raises TaskError; use :func:`scan_tasks` to collect
    errors and go on.
    """
    tasks, errors = scan_tasks(root)
    if errors:
        raise TaskError("; ".join(errors))
    return tasks


def task_of_solution(path: Path | str, ids: set[str] | frozenset[str]) -> str | None:
    """The task a solution file belongs to, from where it lies: the deepest folder named after
    a task id (``corpus/bfs/model-a/sample_1.cu``, ``tasks/bfs/solutions/x.cu``), else a
    ``labels.yaml`` beside it that gives the file a ``task:`` (the gold fixtures); None when
    neither says.

    Examples
    --------
    >>> task_of_solution("runs/heat2d/m1/sample_0.cu", {"heat2d", "bfs"})
    'heat2d'
    >>> task_of_solution("elsewhere/sample_0.cu", {"heat2d"}) is None
    True
    """
    p = Path(path)
    for folder in reversed(p.parent.parts):
        if folder in ids:
            return folder
    labels = p.parent / "labels.yaml"
    if labels.is_file():
        try:
            spec = (yaml.safe_load(labels.read_text()) or {}).get(p.name)
        except (OSError, yaml.YAMLError, AttributeError):
            return None
        task = spec.get("task") if isinstance(spec, dict) else None
        return str(task) if task in ids else None
    return None


def group_by_task(files) -> tuple[dict[str | None, list], dict[str, Task], list[str]]:
    """Solution files grouped by :func:`task_of_solution` (key None: no task found), the
    tasks by id, and the task folders that could not be read."""
    tasks, errors = scan_tasks()
    by_id = {t.id: t for t in tasks}
    ids = set(by_id)
    groups: dict[str | None, list] = {}
    for f in files:
        groups.setdefault(task_of_solution(f, ids), []).append(f)
    return groups, by_id, errors


def scan_tasks(root: Path | str | None = None) -> tuple[list[Task], list[str]]:
    """Like :func:`list_tasks` but returns (tasks, error messages) instead of raising."""
    root = Path(root) if root else TASKS_DIR
    tasks, errors = [], []
    for d in sorted(root.iterdir()) if root.exists() else []:
        if d.is_dir() and ((d / "task.yaml").exists() or (d / "task.json").exists()):
            try:
                tasks.append(load_task(d))
            except TaskError as exc:
                errors.append(str(exc))
    tasks.sort(key=lambda t: (t.domain, t.id))
    return tasks, errors


# --------------------------------------------------------------------------- length expressions

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"min": min, "max": max}


def _length_names(expr: str) -> set[str]:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"length {expr!r} is not an expression") from exc
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.USub, ast.Constant,
                                   ast.Call, ast.Load, *_OPS)):
            raise ValueError(f"length {expr!r}: {type(node).__name__} not allowed")
    return names - set(_FUNCS)


def _eval_length(expr: str, names: dict) -> int:
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise KeyError(f"name {node.id!r} not among the scalars and generator extras")
            return int(names[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS):
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ValueError(f"unsupported element {ast.dump(node)}")
    return ev(ast.parse(expr, mode="eval"))


# --------------------------------------------------------------------------- comparison

@dataclass
class CompareResult:
    """Outcome of comparing a solution's outputs with the reference's.

    `mismatches` counts elements (positions) that fail; `nan_count` counts NaN in the answer;
    `detail` is a short human explanation of the first failures; `per_output` holds the same
    figures per output array.
    """

    ok: bool
    mode: str
    mismatches: int = 0
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    nan_count: int = 0
    detail: str = ""
    atol: float = 0.0
    rtol: float = 0.0
    per_output: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("ok", "mode", "mismatches", "max_abs_err",
                                              "max_rel_err", "nan_count", "detail", "atol",
                                              "rtol", "per_output")}


def compare(task: Task, got: dict, expected: dict, tight: bool = False) -> CompareResult:
    """Compare `got` with `expected` over the task's compared outputs in its correctness mode.

    Parameters
    ----------
    task : Task
    got, expected : dict
        Output name -> numpy array.
    tight : bool
        Use ``correctness.tight`` tolerances (precision audit) instead of atol/rtol.

    Returns
    -------
    CompareResult
        ``ok`` is True only when every compared output passes.
    """
    c = task.correctness
    atol, rtol = c.atol, c.rtol
    if tight:
        atol = float(c.tight.get("atol", atol))
        rtol = float(c.tight.get("rtol", rtol))
    res = CompareResult(ok=True, mode=c.mode, atol=atol, rtol=rtol)
    details = []
    for name in task.compared_outputs:
        if name not in got or name not in expected:
            which = "answer" if name not in got else "reference"
            res.ok = False
            res.per_output[name] = {"ok": False, "detail": f"missing in {which}"}
            details.append(f"{name}: missing in {which}")
            continue
        a = np.asarray(got[name]).ravel()
        b = np.asarray(expected[name]).ravel()
        if a.shape != b.shape:
            res.ok = False
            msg = f"{name}: {a.size} elements, reference has {b.size}"
            res.per_output[name] = {"ok": False, "detail": msg, "mismatches": max(a.size, b.size)}
            res.mismatches += max(a.size, b.size)
            details.append(msg)
            continue
        if c.mode == "label-permutation":
            out = _compare_labels(a, b, c.noise_label)
        elif c.mode == "set":
            out = _compare_elements(np.sort(a), np.sort(b), atol, rtol,
                                    exact=(atol == 0 and rtol == 0))
            if out["mismatches"]:
                out["detail"] = "multisets differ: " + out["detail"].replace("[", "sorted[")
        else:
            out = _compare_elements(a, b, atol, rtol, exact=(c.mode == "exact"))
        res.per_output[name] = out
        res.ok &= out["ok"]
        res.mismatches += out["mismatches"]
        res.nan_count += out["nan_count"]
        res.max_abs_err = max(res.max_abs_err, out["max_abs_err"])
        res.max_rel_err = max(res.max_rel_err, out["max_rel_err"])
        if out["detail"]:
            details.append(f"{name}: {out['detail']}")
    res.detail = "; ".join(details)
    return res


# Elements compared at a time: the float64 temporaries stay in cache, so a 100M-element output
# compares several times faster than in one pass (the harness validates every timed call).
_CHUNK = 1 << 20


def _compare_elements(a: np.ndarray, b: np.ndarray, atol: float, rtol: float,
                      exact: bool) -> dict:
    is_float = a.dtype.kind == "f" or b.dtype.kind == "f"
    nan_count = mismatches = 0
    max_abs = max_rel = 0.0
    first: list[int] = []
    for lo in range(0, a.size, _CHUNK):
        bad, c_abs, c_rel, c_nan = _compare_chunk(a[lo:lo + _CHUNK], b[lo:lo + _CHUNK], atol,
                                                  rtol, exact, is_float)
        nan_count += c_nan
        max_abs, max_rel = max(max_abs, c_abs), max(max_rel, c_rel)
        idx = np.flatnonzero(bad)
        mismatches += idx.size
        if len(first) < 3:
            first += (lo + idx[:3 - len(first)]).tolist()
    detail = ""
    if mismatches:
        shown = ", ".join(f"[{i}] got {a[i]!r} want {b[i]!r}" for i in first)
        detail = f"{mismatches} of {a.size} differ: {shown}"
    return {"ok": not mismatches, "mismatches": int(mismatches), "nan_count": nan_count,
            "max_abs_err": max_abs, "max_rel_err": max_rel, "detail": detail}


def _compare_chunk(a: np.ndarray, b: np.ndarray, atol: float, rtol: float, exact: bool,
                   is_float: bool) -> tuple[np.ndarray, float, float, int]:
    """Mismatch mask, max abs and rel error and NaN count of one chunk."""
    nan_count = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
    max_abs = max_rel = 0.0
    if not is_float:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        diff = np.abs(a64 - b64)
        bad = a.astype(np.int64) != b.astype(np.int64) if exact else \
            diff > atol + rtol * np.abs(b64)
        if a.size:
            max_abs = float(diff.max())
            nz = b != 0
            max_rel = float((diff[nz] / np.abs(b64[nz])).max()) if nz.any() else 0.0
        return bad, max_abs, max_rel, nan_count
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(a64 - b64)  # NaN where either is NaN or both are the same infinity
        absb = np.abs(b64)
        ok = (a64 == b64) if exact else (diff <= atol + rtol * absb)
        if ok.all() and np.isfinite(diff).all():  # the common case: all finite and close
            finite = None
        else:  # non-finite values pass only where both sides hold the same special value
            finite = np.isfinite(a64) & np.isfinite(b64)
            ok &= finite
            ok |= (np.isnan(a64) & np.isnan(b64)) | (np.isinf(b64) & (a64 == b64))
            diff[~finite] = 0.0
        if finite is None or finite.any():
            max_abs = float(diff.max())
            rel = diff / absb  # inf or NaN where the reference is 0
            nz = absb != 0 if finite is None else finite & (absb != 0)
            max_rel = float(rel.max(where=nz, initial=0.0))
    return ~ok, max_abs, max_rel, nan_count


def _compare_labels(a: np.ndarray, b: np.ndarray, noise: int | None) -> dict:
    """Equal up to a bijection of labels; `noise` (if any) must map to itself.

    The mapping keeps the most frequent (expected, got) pairs first; every position whose pair
    is not in the mapping is a mismatch.
    """
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    pairs, inverse, counts = np.unique(np.stack([b, a], axis=1), axis=0, return_inverse=True,
                                       return_counts=True)
    order = np.argsort(-counts, kind="stable")
    used_b, used_a, kept = set(), set(), np.zeros(len(pairs), dtype=bool)
    for k in order:
        eb, ga = int(pairs[k, 0]), int(pairs[k, 1])
        if noise is not None and ((eb == noise) != (ga == noise)):
            continue
        if eb in used_b or ga in used_a:
            continue
        used_b.add(eb)
        used_a.add(ga)
        kept[k] = True
    bad = ~kept[inverse.ravel()]
    idx = np.flatnonzero(bad)
    detail = ""
    if idx.size:
        shown = ", ".join(f"[{i}] got {a[i]} want {b[i]}" for i in idx[:3])
        detail = f"{idx.size} of {a.size} break the label bijection: {shown}"
    return {"ok": not idx.size, "mismatches": int(idx.size), "nan_count": 0,
            "max_abs_err": 0.0, "max_rel_err": 0.0, "detail": detail}


# --------------------------------------------------------------------------- checksums

def output_checksum(task: Task, outputs: dict, digits: int = CHECKSUM_DIGITS) -> str:
    """SHA-256 over canonical bytes of the outputs.

    Integers: little-endian int64 bytes. Floats: each finite value as the pair (decimal
    exponent, mantissa rounded to `digits` significant digits) in int64, -0 as 0, NaN and
    +-inf as fixed codes, so that last-bit differences between compilers do not change the sum.
    """
    h = hashlib.sha256()
    for name in task.output_names:
        arr = np.asarray(outputs[name]).ravel()
        h.update(name.encode() + b"\0")
        if arr.dtype.kind == "f":
            h.update(_float_digits(arr.astype(np.float64), digits).tobytes())
        else:
            h.update(arr.astype("<i8").tobytes())
        h.update(b"\0")
    return h.hexdigest()


def committed_checksum(task: Task) -> str | None:
    """The checksum committed in ``tasks/<id>/small.sha256`` (first word), or None."""
    f = task.path / "small.sha256"
    if not f.exists():
        return None
    words = f.read_text().split()
    return words[0] if words else None


def _float_digits(x: np.ndarray, digits: int) -> np.ndarray:
    """(exponent, mantissa) int64 pairs with `digits` significant decimal digits."""
    finite = np.isfinite(x) & (x != 0)
    safe = np.where(finite, np.abs(x), 1.0)
    exp = np.floor(np.log10(safe)).astype(np.int64)
    mant = np.rint(np.where(finite, x, 0.0) / 10.0 ** exp.astype(np.float64) * 10 ** (digits - 1))
    mant = mant.astype(np.int64)
    carry = np.abs(mant) >= 10 ** digits  # 9.9995 rounds up to 10.000: renormalise
    mant = np.where(carry, mant // 10, mant)
    exp = np.where(carry, exp + 1, exp)
    code = np.zeros_like(exp)  # 0 zero, 1 finite, 2 nan, 3 +inf, 4 -inf
    code[finite] = 1
    code[np.isnan(x)] = 2
    code[np.isposinf(x)] = 3
    code[np.isneginf(x)] = 4
    exp = np.where(finite, exp, 0)
    return np.stack([code, exp, mant], axis=1).astype("<i8")


# --------------------------------------------------------------------------- reference

def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def gcc_version() -> str:
    """First line of ``gcc --version``."""
    try:
        return subprocess.run(["gcc", "--version"], capture_output=True, text=True,
                              check=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def reference_hash(task: Task) -> str:
    src = (task.path / "reference.c").read_bytes()
    return hashlib.sha256(src + b"\0" + " ".join(GCC_FLAGS).encode() + b"\0" +
                          gcc_version().encode()).hexdigest()


def build_reference(task: Task) -> Path:
    """Compile reference.c with gcc into a shared library under CACHE_DIR (cached by hash).

    Raises
    ------
    TaskError
        When gcc fails; the message holds gcc's diagnostics.
    """
    src = task.path / ("reference.c" if (task.path / "reference.c").exists()
                       else "cpu_reference.c")
    if not src.exists():
        raise TaskError(f"{task.path}: no reference.c")
    h = hashlib.sha256(src.read_bytes() + b"\0" + " ".join(GCC_FLAGS).encode() + b"\0" +
                       gcc_version().encode()).hexdigest()
    lib = CACHE_DIR / "ref" / f"{task.id}-{h[:16]}.so"
    if lib.exists():
        return lib
    lib.parent.mkdir(parents=True, exist_ok=True)
    # pid and thread id: threads of one process may build the same reference at once
    tmp = lib.with_name(f".{lib.name}.{os.getpid()}.{threading.get_ident()}")
    proc = subprocess.run(["gcc", *GCC_FLAGS, "-o", str(tmp), str(src), "-lm"], check=False,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise TaskError(f"{src}: gcc failed:\n{proc.stderr.strip()}")
    os.replace(tmp, lib)
    return lib


@dataclass
class ReferenceRun:
    """Expected outputs of one (task, size, seed offset) and the record of how they were timed."""

    outputs: dict[str, np.ndarray]
    record: dict
    cached: bool = False


def _expected_key(task: Task, size: str, seed_offset: int) -> Path:
    h = hashlib.sha256((reference_hash(task) + task.content_hash()).encode()).hexdigest()
    return CACHE_DIR / "expected" / task.id / f"{size}-s{seed_offset}-{h[:16]}"


def run_reference(task: Task, size: str, trials: int = 3, seed_offset: int = 0,
                  remeasure: bool = False, cpu: int | None = None) -> ReferenceRun:
    """Run the C reference single-threaded, pinned to one core, in a child process.

    Every trial starts from fresh poisoned outputs; all trials must produce identical outputs
    (a reference that keeps state between calls fails here). Expected outputs (.npz) and the
    record (.json) are cached under CACHE_DIR keyed by task, size, seed offset and the hashes
    of the reference and the task files; a cached result is returned unless `remeasure`.

    Returns
    -------
    ReferenceRun
        `record` holds ``trials_s`` (every trial), ``median_s``, ``cpu_model``, ``gcc``,
        ``hostname``, ``commit``, ``utc`` and the pinned ``cpu``.
    """
    key = _expected_key(task, size, seed_offset)
    npz, rec = key.with_suffix(".npz"), key.with_suffix(".json")
    if npz.exists() and rec.exists() and not remeasure:
        record = json.loads(rec.read_text())
        if len(record.get("trials_s", [])) >= trials:
            with np.load(npz) as data:
                outputs = {k: data[k] for k in data.files}
            return ReferenceRun(outputs, record, cached=True)
    lib = build_reference(task)
    if cpu is None:
        cpu = max(os.sched_getaffinity(0))
    # A fresh interpreter, not fork: the caller may hold CUDA or other threads, and unlike
    # multiprocessing's spawn it needs no main-module guard in the caller's script.
    key.parent.mkdir(parents=True, exist_ok=True)
    tmp_npz = key.parent / f".{key.name}.{os.getpid()}.npz"
    tmp_status = key.parent / f".{key.name}.{os.getpid()}.json"
    spec = {"task": str(task.path), "size": size, "params": task.sizes[size], "seed": task.seed,
            "lib": str(lib), "seed_offset": seed_offset, "trials": trials, "cpu": cpu,
            "out_npz": str(tmp_npz), "out_status": str(tmp_status)}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", "import strategylens.tasks as t; "
                           "t._reference_child_main()"], input=json.dumps(spec), text=True,
                          capture_output=True, env=env, check=False)
    try:
        status = json.loads(tmp_status.read_text())
    except (OSError, json.JSONDecodeError):
        tail = proc.stderr.strip().splitlines()[-3:]
        status = {"error": f"reference process died (exit code {proc.returncode}): "
                           + " | ".join(tail)}
    tmp_status.unlink(missing_ok=True)
    if "error" in status:
        tmp_npz.unlink(missing_ok=True)
        raise TaskError(f"{task.path / 'reference.c'}: {status['error']}")
    with np.load(tmp_npz) as data:
        outputs = {k: data[k] for k in data.files}
    os.replace(tmp_npz, npz)
    times = status["trials_s"]
    record = {
        "task": task.id, "size": size, "seed_offset": seed_offset, "seed": task.seed + seed_offset,
        "trials_s": times, "median_s": float(np.median(times)), "min_s": float(min(times)),
        "cpu": cpu, "cpu_model": cpu_model(), "gcc": gcc_version(),
        "gcc_flags": " ".join(GCC_FLAGS), "hostname": socket.gethostname(),
        "commit": git_commit(short=False), "utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "strategylens": __version__, "reference_sha256": reference_hash(task),
        "task_sha256": task.content_hash(), "gen_s": status["gen_s"],
        "bytes_in": status["bytes_in"], "bytes_out": status["bytes_out"],
        # The checksum costs several copies of the outputs: only for outputs up to 16M values.
        "output_sha256": (output_checksum(task, outputs)
                          if sum(v.size for v in outputs.values()) <= 1 << 24 else None),
    }
    _atomic_write(rec, json.dumps(record, indent=2).encode())
    return ReferenceRun(outputs, record)


def _reference_child_main() -> None:
    """Entry of the timing child: reads a JSON spec on stdin, writes outputs and a status file."""
    spec = json.loads(sys.stdin.read())
    status: dict
    try:
        os.sched_setaffinity(0, {spec["cpu"]})
        task = load_task(spec["task"])
        task.sizes[spec["size"]] = spec["params"]
        task.seed = spec["seed"]
        t0 = time.perf_counter()
        inputs = task.generate(spec["size"], spec["seed_offset"])
        gen_s = time.perf_counter() - t0
        fn = task.bind(ctypes.CDLL(spec["lib"]).solution_compute)
        times, first = [], None
        for _ in range(max(1, spec["trials"])):
            outputs = task.new_outputs(inputs, poison=True)
            t0 = time.perf_counter()
            task.call(fn, inputs, outputs)
            times.append(time.perf_counter() - t0)
            if first is None:
                first = outputs
            else:
                for name in first:
                    if not np.array_equal(first[name], outputs[name], equal_nan=True):
                        raise TaskError(f"output {name!r} differs between trials (state kept "
                                        "between calls?)")
        names = {p.name: p for p in task.params}
        b_in = sum(v.nbytes for k, v in inputs.items() if isinstance(v, np.ndarray)
                   and k in names and names[k].direction in ("in", "inout"))
        b_out = sum(v.nbytes for v in first.values())
        with open(spec["out_npz"], "wb") as f:
            np.savez(f, **first)
        status = {"trials_s": times, "gen_s": gen_s, "bytes_in": int(b_in),
                  "bytes_out": int(b_out)}
    except Exception as exc:  # report to the parent, whatever went wrong
        status = {"error": f"{type(exc).__name__}: {exc}"}
    Path(spec["out_status"]).write_text(json.dumps(status))


# --------------------------------------------------------------------------- AccelEval

ACCELEVAL_MAGICS = (b"ORBENCH\0", b"ACCELEVA")
_AE_HEADER = struct.Struct("<8siiiiq")
_AE_TENSOR = struct.Struct("<32siiqqq")
_AE_PARAM = struct.Struct("<32sq")
_AE_DTYPES = {0: np.int32, 1: np.float32, 2: np.float64}


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
    if len(data) < _AE_HEADER.size:
        raise TaskError(f"{path}: truncated: {len(data)} bytes, header needs {_AE_HEADER.size}")
    magic, version, ntensors, nparams, data_offset, _ = _AE_HEADER.unpack_from(data, 0)
    if magic not in ACCELEVAL_MAGICS:
        raise TaskError(f"{path}: bad magic {magic!r} (want ORBENCH\\0 or ACCELEVA)")
    if version != 1:
        raise TaskError(f"{path}: unsupported version {version}")
    if ntensors < 0 or nparams < 0:
        raise TaskError(f"{path}: negative counts ({ntensors} tensors, {nparams} params)")
    meta_end = _AE_HEADER.size + ntensors * _AE_TENSOR.size + nparams * _AE_PARAM.size
    if meta_end > len(data):
        raise TaskError(f"{path}: truncated: descriptors end at byte {meta_end}, file has "
                        f"{len(data)}")
    if data_offset < meta_end:
        raise TaskError(f"{path}: data_offset {data_offset} overlaps the descriptors")
    out: dict = {}
    pos = _AE_HEADER.size
    for i in range(ntensors):
        raw_name, code, _, count, offset, nbytes = _AE_TENSOR.unpack_from(data, pos)
        pos += _AE_TENSOR.size
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "replace")
        if code not in _AE_DTYPES:
            raise TaskError(f"{path}: tensor {i} ({name!r}): unknown dtype code {code}")
        dt = np.dtype(_AE_DTYPES[code]).newbyteorder("<")
        if count < 0 or nbytes != count * dt.itemsize:
            raise TaskError(f"{path}: tensor {name!r}: size_bytes {nbytes} != count {count} x "
                            f"{dt.itemsize}")
        if offset < data_offset or offset + nbytes > len(data):
            raise TaskError(f"{path}: truncated: tensor {name!r} needs bytes {offset}.."
                            f"{offset + nbytes}, file has {len(data)}")
        if name in out:
            raise TaskError(f"{path}: duplicate name {name!r}")
        out[name] = np.frombuffer(data, dtype=dt, count=count, offset=offset).astype(
            _AE_DTYPES[code])
    for _ in range(nparams):
        raw_name, value = _AE_PARAM.unpack_from(data, pos)
        pos += _AE_PARAM.size
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "replace")
        if name in out:
            raise TaskError(f"{path}: duplicate name {name!r}")
        out[name] = int(value)
    return out


_AE_DOMAINS = {"hpc": "hpc", "graph": "graph", "finance": "finance",
               "scientific": "scientific-simulation", "scientific-simulation":
               "scientific-simulation", "scientific_simulation": "scientific-simulation",
               "spatial": "spatial-temporal", "spatial-temporal": "spatial-temporal",
               "spatial_temporal": "spatial-temporal", "operations-research":
               "operations-research", "operations_research": "operations-research",
               "or": "operations-research"}


def load_acceleval_task(path: Path | str) -> Task:
    """Map an AccelEval task folder (task.json, optional cpu_reference.c) onto :class:`Task`.

    The signature comes from ``solution_compute`` in cpu_reference.c when present; array lengths
    and output directions beyond const-ness are not in AccelEval's files and are listed in
    ``task.unknown``. Inputs come from ``data/<size>/input.bin`` (see :meth:`Task.generate`).
    """
    path = Path(path)
    file = path / "task.json"
    try:
        doc = json.loads(file.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskError(f"{file}: cannot read: {exc}") from exc
    _require(isinstance(doc, dict), file, "<top>", "must be an object")
    _require(isinstance(doc.get("task_id"), str), file, "task_id", "missing")
    unknown = ["params.length", "description", "seed"]
    category = str(doc.get("category", "")).lower()
    domain = _AE_DOMAINS.get(category, category or "unknown")
    if domain not in DOMAINS:
        unknown.append("domain")
    sizes = doc.get("input_sizes") or {}
    _require(isinstance(sizes, dict), file, "input_sizes", "must be an object")
    corr = doc.get("correctness") or {}
    mode = {"numerical": "numeric", "numeric": "numeric", "exact": "exact"}.get(
        str(corr.get("mode", "numeric")), "numeric")
    correctness = Correctness(mode=mode, atol=float(corr.get("atol", 0.0) or 0.0),
                              rtol=float(corr.get("rtol", 0.0) or 0.0))
    signature, params = None, []
    ref = path / "cpu_reference.c"
    if ref.exists():
        m = re.search(r"void\s+solution_compute\s*\([^)]*\)", _strip_c_comments(ref.read_text()))
        if m:
            signature = " ".join(m.group(0).split())
            try:
                for name, ctype, is_ptr, is_const in parse_signature(signature):
                    dtype = next((d for d, names in _C_NAMES.items() if ctype in names), None)
                    if dtype is None:
                        unknown.append(f"params.{name}.dtype")
                        dtype = "u8"
                    params.append(Param(name, "array" if is_ptr else "scalar", dtype,
                                        ("in" if is_const else "out") if is_ptr else "in", None))
            except ValueError:
                params = []
    if signature is None:
        unknown.extend(["signature", "params"])
    return Task(id=doc["task_id"], name=str(doc.get("name", doc["task_id"])), domain=domain,
                summary=str(doc.get("name", "")), description="", signature=signature,
                params=params, sizes={s: dict(v) for s, v in sizes.items()}, seed=0,
                correctness=correctness, path=path.resolve(), source="acceleval",
                unknown=unknown)


def _strip_c_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


def clear_cache() -> None:
    """Remove the strategylens task cache (compiled references, expected outputs)."""
    for sub in ("ref", "expected", "bytes", "inputs"):
        shutil.rmtree(CACHE_DIR / sub, ignore_errors=True)
