"""The one :class:`Task` every task format loads into, its parameters and correctness rule, and
the loader boundary (:class:`TaskFormat`) the formats implement."""

from __future__ import annotations

import ast
import ctypes
import hashlib
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from strategylens.dtypes import DTYPES, np_dtype
from strategylens.resources import atomic_write, cache_root

DOMAINS = ("hpc", "scientific-simulation", "graph", "spatial-temporal", "finance",
           "operations-research")
SIZES = ("small", "medium", "large")
MODES = ("exact", "numeric", "label-permutation", "set")


class TaskError(ValueError):
    """A task folder, task file or input file is invalid; the message names the file."""


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


class TaskFormat:
    """One on-disk task format: how a folder is recognised, loaded into a :class:`Task`, and
    how the task's inputs are produced. ``strategylens.tasks.suite.FORMATS`` lists them; a new
    format (or a format's own run adapter) is a new subclass there, not a branch in ``Task``."""

    name = "?"
    marker = "?"                  # the file that marks a folder of this format
    reference_names: tuple[str, ...] = ()   # the C reference, first existing wins
    content_files: tuple[str, ...] = ()     # files whose bytes name the task's version
    lengths_known = True          # array lengths are expressions the format gives
    adapter: str | None = None    # the file solutions are built with and driven through, if any

    def detect(self, folder: Path) -> bool:
        return (folder / self.marker).exists()

    def load(self, folder: Path) -> Task:
        raise NotImplementedError

    def generate(self, task: Task, size: str, seed_offset: int) -> dict:
        raise NotImplementedError

    def run_reference(self, task: Task, size: str, trials: int, seed_offset: int,
                      remeasure: bool, cpu: int | None):
        """Expected outputs and the CPU timing record of a format whose reference is not a
        plain ``solution_compute`` (None: :func:`strategylens.tasks.reference.run_reference`
        builds and calls it)."""
        return None


@dataclass
class Task:
    """A loaded task. `path` is its folder; `format` the :class:`TaskFormat` that loaded it."""

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
    unknown: list[str] = field(default_factory=list)  # fields the folder did not give
    extra: dict = field(default_factory=dict)  # format-specific facts (AccelEval: timing, notes)
    format: TaskFormat | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.format is None:
            raise TypeError(f"task {self.id}: a Task needs the TaskFormat that loaded it "
                            "(format=...)")

    @property
    def source(self) -> str:
        """Name of the format the task was loaded from (``strategylens`` or ``acceleval``)."""
        return self.format.name

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
        """Inputs for `size`: every in/inout array, every scalar, and generator extras (the
        task's format produces them; seed ``task.seed + seed_offset`` where it generates)."""
        if size not in self.sizes:
            raise TaskError(f"{self.path}: no size {size!r} (have {', '.join(self.sizes)})")
        return self.format.generate(self, size, seed_offset)

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
            return int(eval_length(p.length, names))
        except (KeyError, ValueError, ZeroDivisionError) as exc:
            raise TaskError(f"{self.path / 'task.yaml'}: length {p.length!r} of {p.name!r}: "
                            f"{exc}") from exc

    def check_array(self, p: Param, arr: Any, inputs: dict, where: str) -> None:
        """Raise TaskError unless ``arr`` is a 1-D C-contiguous array of p's dtype and length."""
        if not isinstance(arr, np.ndarray):
            raise TaskError(f"{where}: {p.name!r} is {type(arr).__name__}, not a numpy array")
        if arr.dtype != np_dtype(p.dtype):
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
            dt = np_dtype(p.dtype)
            if not poison:
                outs[p.name] = np.zeros(n, dtype=dt)
            elif dt.kind == "f":
                outs[p.name] = np.full(n, np.nan, dtype=dt)
            else:
                outs[p.name] = np.full(n, DTYPES[p.dtype].poison, dtype=dt)
        return outs

    # ----------------------------------------------------------------- calling
    def bind(self, cfunc: Callable) -> Callable:
        """Set ctypes argtypes (pointers for arrays) and restype (void) on `cfunc`."""
        cfunc.argtypes = [ctypes.c_void_p if p.kind == "array" else DTYPES[p.dtype].ctype
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
            self.check_array(p, arr, inputs, f"task {self.id}")
            args.append(arr.ctypes.data)
        cfunc(*args)

    def bytes_in_out(self, size: str) -> tuple[int, int]:
        """Bytes of array state moved in (in + inout) and out (out + inout) for `size`.

        Generates the inputs once and caches the answer under the cache root.
        """
        key = f"{self.id}-{size}-{self.content_hash()[:16]}"
        cache = cache_root() / "bytes" / f"{key}.json"
        if cache.exists():
            b_in, b_out = json.loads(cache.read_text())
            return int(b_in), int(b_out)
        inputs = dict(self.sizes[size])  # lengths over size parameters need no generation
        try:
            for p in self.params:
                if p.kind == "array":
                    eval_length(p.length, inputs)
        except (KeyError, ValueError, TypeError):
            inputs = self.generate(size)
        b_in = b_out = 0
        for p in self.params:
            if p.kind != "array":
                continue
            nbytes = self.array_length(p, inputs) * np_dtype(p.dtype).itemsize
            if p.direction in ("in", "inout"):
                b_in += nbytes
            if p.direction in ("out", "inout"):
                b_out += nbytes
        atomic_write(cache, json.dumps([b_in, b_out]))
        return b_in, b_out

    def content_hash(self) -> str:
        """SHA-256 over the format's task files (whichever exist)."""
        h = hashlib.sha256()
        for name in self.format.content_files:
            f = self.path / name
            if f.exists():
                h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
        return h.hexdigest()

    def reference_file(self) -> Path:
        """The C reference (the first of the format's names that exists, else the first)."""
        names = self.format.reference_names
        return next((self.path / n for n in names if (self.path / n).exists()), self.path / names[0])

    def summary_row(self) -> dict:
        """A plain dict for listings (JSON-friendly)."""
        return {"id": self.id, "name": self.name, "domain": self.domain,
                "summary": self.summary, "signature": self.signature,
                "sizes": self.sizes, "correctness": self.correctness.mode,
                "source": self.source, "path": str(self.path)}


# --------------------------------------------------------------------------- length expressions

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"min": min, "max": max}


def length_names(expr: str) -> set[str]:
    """Names a length expression uses; ValueError when it is not a plain arithmetic one."""
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


def eval_length(expr: str, names: dict) -> int:
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
