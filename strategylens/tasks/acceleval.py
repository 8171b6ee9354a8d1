"""The AccelEval task format: ``task.json``, optional ``cpu_reference.c``, and fixed input files
``data/<size>/input.bin``, loaded into the same :class:`~strategylens.tasks.task.Task`.

What AccelEval's files do not say (array lengths, output directions beyond const-ness, a
description, a seed) is listed in ``task.unknown``. Running AccelEval tasks through their own
adapters is a later step: it belongs in :class:`AccelEvalFormat`, not in ``Task``.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np

from strategylens.dtypes import from_c_name
from strategylens.tasks.own import parse_signature, require
from strategylens.tasks.task import DOMAINS, Correctness, Param, Task, TaskError, TaskFormat

ACCELEVAL_MAGICS = (b"ORBENCH\0", b"ACCELEVA")
_HEADER = struct.Struct("<8siiiiq")
_TENSOR = struct.Struct("<32siiqqq")
_PARAM = struct.Struct("<32sq")
_DTYPE_CODES = {0: np.int32, 1: np.float32, 2: np.float64}
_DOMAINS = {"hpc": "hpc", "graph": "graph", "finance": "finance",
            "scientific": "scientific-simulation", "scientific-simulation":
            "scientific-simulation", "scientific_simulation": "scientific-simulation",
            "spatial": "spatial-temporal", "spatial-temporal": "spatial-temporal",
            "spatial_temporal": "spatial-temporal", "operations-research":
            "operations-research", "operations_research": "operations-research",
            "or": "operations-research"}


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


def _strip_c_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


class AccelEvalFormat(TaskFormat):
    name = "acceleval"
    marker = "task.json"
    reference_names = ("cpu_reference.c",)
    content_files = ("task.json", "cpu_reference.c")
    lengths_known = False

    def load(self, folder: Path) -> Task:
        """Map an AccelEval task folder onto :class:`Task`.

        The signature comes from ``solution_compute`` in cpu_reference.c when present.
        """
        file = folder / "task.json"
        try:
            doc = json.loads(file.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise TaskError(f"{file}: cannot read: {exc}") from exc
        require(isinstance(doc, dict), file, "<top>", "must be an object")
        require(isinstance(doc.get("task_id"), str), file, "task_id", "missing")
        unknown = ["params.length", "description", "seed"]
        category = str(doc.get("category", "")).lower()
        domain = _DOMAINS.get(category, category or "unknown")
        if domain not in DOMAINS:
            unknown.append("domain")
        sizes = doc.get("input_sizes") or {}
        require(isinstance(sizes, dict), file, "input_sizes", "must be an object")
        corr = doc.get("correctness") or {}
        mode = {"numerical": "numeric", "numeric": "numeric", "exact": "exact"}.get(
            str(corr.get("mode", "numeric")), "numeric")
        correctness = Correctness(mode=mode, atol=float(corr.get("atol", 0.0) or 0.0),
                                  rtol=float(corr.get("rtol", 0.0) or 0.0))
        signature, params = None, []
        ref = folder / "cpu_reference.c"
        if ref.exists():
            m = re.search(r"void\s+solution_compute\s*\([^)]*\)", _strip_c_comments(ref.read_text()))
            if m:
                signature = " ".join(m.group(0).split())
                try:
                    for name, ctype, is_ptr, is_const in parse_signature(signature):
                        dtype = from_c_name(ctype)
                        if dtype is None:
                            unknown.append(f"params.{name}.dtype")
                            dtype = "u8"
                        params.append(Param(name, "array" if is_ptr else "scalar", dtype,
                                            ("in" if is_const else "out") if is_ptr else "in",
                                            None))
                except ValueError:
                    params = []
        if signature is None:
            unknown.extend(["signature", "params"])
        return Task(id=doc["task_id"], name=str(doc.get("name", doc["task_id"])), domain=domain,
                    summary=str(doc.get("name", "")), description="", signature=signature,
                    params=params, sizes={s: dict(v) for s, v in sizes.items()}, seed=0,
                    correctness=correctness, path=folder.resolve(), unknown=unknown, format=self)

    def generate(self, task: Task, size: str, seed_offset: int) -> dict:
        """The fixed inputs of ``data/<size>/input.bin``; float scalars AccelEval stores as
        scaled integers (``eps_x10000``) are scaled back."""
        if seed_offset:
            raise TaskError(f"{task.path}: AccelEval inputs are fixed files; seed_offset "
                            "must be 0")
        inputs = read_acceleval_input(task.path / "data" / size / "input.bin")
        for k, v in task.sizes[size].items():
            inputs.setdefault(k, v)
        for p in task.params:
            if p.kind == "scalar" and p.name not in inputs:
                for key, value in list(inputs.items()):
                    m = re.fullmatch(re.escape(p.name) + r"_x(\d+)", key)
                    if m and not isinstance(value, np.ndarray):
                        inputs[p.name] = value / int(m.group(1))
        return inputs


ACCELEVAL = AccelEvalFormat()


def load_acceleval_task(path: Path | str) -> Task:
    """An AccelEval task folder as a :class:`Task` (see :class:`AccelEvalFormat`)."""
    return ACCELEVAL.load(Path(path))
