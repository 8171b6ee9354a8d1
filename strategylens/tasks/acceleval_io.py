"""AccelEval's ``input.bin``: the reader (both magics) and the magic of a file.

Kept apart from the task format (``strategylens.tasks.acceleval``) so that the generator
(``acceleval_gen``) reads inputs without importing the format that calls it."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from strategylens.tasks.task import TaskError

ACCELEVAL_MAGICS = (b"ORBENCH\0", b"ACCELEVA")
_HEADER = struct.Struct("<8siiiiq")
_TENSOR = struct.Struct("<32siiqqq")
_PARAM = struct.Struct("<32sq")
_DTYPE_CODES = {0: np.int32, 1: np.float32, 2: np.float64}


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
