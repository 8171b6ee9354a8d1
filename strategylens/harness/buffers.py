"""The input sets of one (task, size) and the shared buffer (a memfd) the child reads them from.

The parent keeps every set's inputs and expected outputs to itself; the child sees only the
memfd. Before each call the parent puts set k's inputs in place and poisons the outputs
(:meth:`SharedBuffers.load`); after it, it reads the outputs and checks that the inputs are
unchanged.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from strategylens.dtypes import np_dtype
from strategylens.harness.validate import POISON_BYTE

PAGE = 4096


@dataclass
class InputSet:
    """One generated input set of a size and the reference's answer for it (parent only)."""

    seed_offset: int
    inputs: dict
    expected: dict


def array_length(s: InputSet, p: dict) -> int:
    """Elements of array ``p`` in set ``s`` (outputs: the answer's length)."""
    src = s.expected.get(p["name"]) if p["direction"] == "out" else s.inputs.get(p["name"])
    return int(np.asarray(src).size)


def scalar_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray) and v.size == 1:
        return v.item()
    return v


def layout_for(params: list[dict], sets: list[InputSet]) -> tuple[list[dict], int]:
    """Offsets of every array in the shared buffer, page-aligned and sized for the largest set.

    Each array parameter gets ``offset``, ``nbytes`` and ``offsets`` (one region here: every
    set is written into the same place before its call)."""
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
            nbytes = max(n * np_dtype(p["dtype"]).itemsize, 1)
            entry.update(offset=offset, nbytes=nbytes, offsets=[offset])
            offset += (nbytes + PAGE - 1) // PAGE * PAGE
        layout.append(entry)
    return layout, max(offset, PAGE)


class SharedBuffers:
    """One memfd holding the arrays of a (task, size), and the parent's mapping of it."""

    def __init__(self, params: list[dict], sets: list[InputSet]) -> None:
        self.params, self.sets = params, sets
        self.layout, self.size = layout_for(params, sets)
        self.by_name = {p["name"]: p for p in self.layout if p["kind"] == "array"}
        self.memfd = os.memfd_create("sl-io", 0)
        os.ftruncate(self.memfd, self.size)
        self.shm = mmap.mmap(self.memfd, self.size)

    def setup(self) -> dict:
        """What the child needs to map the buffer (one entry of ``setup["layouts"]``)."""
        return {"memfd": self.memfd, "mem_size": self.size, "params": self.layout}

    def view(self, name: str, n: int) -> np.ndarray:
        p = self.by_name[name]
        return np.frombuffer(self.shm, dtype=np_dtype(p["dtype"]), count=n, offset=p["offset"])

    def arrays(self, directions: tuple[str, ...]) -> list[dict]:
        return [p for p in self.params if p["kind"] == "array" and p["direction"] in directions]

    def scalars(self, k: int) -> dict:
        s = self.sets[k]
        return {p["name"]: scalar_value(s.inputs.get(p["name"])) for p in self.params
                if p["kind"] == "scalar"}

    def load(self, k: int) -> int:
        """Set k's inputs in, outputs poisoned; returns the input slot the call reads."""
        s = self.sets[k]
        for p in self.arrays(("in", "inout", "out")):
            v = self.view(p["name"], array_length(s, p))
            if p["direction"] == "out":
                v.view(np.uint8)[:] = POISON_BYTE
            else:
                v[:] = np.asarray(s.inputs[p["name"]]).ravel()
        return 0

    def outputs(self, k: int) -> dict[str, np.ndarray]:
        """Views of the outputs the call on set k wrote (those the answer has)."""
        s = self.sets[k]
        return {p["name"]: self.view(p["name"], array_length(s, p))
                for p in self.arrays(("out", "inout")) if p["name"] in s.expected}

    def inputs_changed(self, k: int) -> bool:
        """Whether the call changed any ``in`` array of set k."""
        s = self.sets[k]
        return any(not np.array_equal(self.view(p["name"], array_length(s, p)),
                                      np.asarray(s.inputs[p["name"]]).ravel(), equal_nan=True)
                   for p in self.arrays(("in",)))

    def close(self) -> None:
        try:
            self.shm.close()
        except BufferError:  # a numpy view still refers to it; it closes when collected
            pass
        try:
            os.close(self.memfd)
        except OSError:
            pass
