"""The element types a task signature may use: one table for the task loader, the C references,
the generated wrapper and the harness child.

Each row names a dtype (``f32``) and gives its numpy type, its ctypes type, the C spelling the
harness's wrapper declares, the C spellings a ``task.yaml`` signature may use, and the value a
fresh integer output is filled with (floats get NaN). numpy is not imported here: the harness
child reads this table and stays light.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str
    numpy: str                  # numpy type name: np.dtype(DTYPES["f32"].numpy)
    ctype: type                 # ctypes type of a scalar argument
    cdecl: str                  # the C type the generated wrapper declares
    c_names: frozenset[str]     # C spellings accepted in a signature
    poison: int | None = None   # fill of fresh integer outputs; None for floats (NaN)


DTYPES: dict[str, DType] = {d.name: d for d in (
    DType("i8", "int8", ctypes.c_int8, "char", frozenset({"char", "signed char", "int8_t"}), 0x7F),
    DType("u8", "uint8", ctypes.c_uint8, "unsigned char", frozenset({"unsigned char", "uint8_t"}),
          0x7F),
    DType("i32", "int32", ctypes.c_int32, "int", frozenset({"int", "int32_t"}), 0x7F7F7F7F),
    DType("u32", "uint32", ctypes.c_uint32, "unsigned int",
          frozenset({"unsigned int", "unsigned", "uint32_t"}), 0x7F7F7F7F),
    DType("i64", "int64", ctypes.c_int64, "long long", frozenset({"long long", "int64_t", "long"}),
          0x7F7F7F7F7F7F7F7F),
    DType("u64", "uint64", ctypes.c_uint64, "unsigned long long",
          frozenset({"unsigned long long", "uint64_t", "unsigned long"}), 0x7F7F7F7F7F7F7F7F),
    DType("f32", "float32", ctypes.c_float, "float", frozenset({"float"})),
    DType("f64", "float64", ctypes.c_double, "double", frozenset({"double"})),
)}


def np_dtype(name: str):
    """The numpy dtype of a dtype name (``np_dtype("f32") == np.float32``)."""
    import numpy as np  # noqa: PLC0415 - see the module docstring

    return np.dtype(DTYPES[name].numpy)


def from_c_name(ctype: str) -> str | None:
    """The dtype a C spelling names, or None (``from_c_name("uint32_t") == "u32"``)."""
    return next((d.name for d in DTYPES.values() if ctype in d.c_names), None)
