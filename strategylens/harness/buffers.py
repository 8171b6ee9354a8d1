"""The input sets of one (task, size) and the shared buffer (a memfd) the child reads them from.

The parent keeps every set's inputs and expected outputs to itself; the child sees only the
memfd. Two ways to fill it (``RunConfig.io``):

``rewrite``
    one region per array; before each call the parent writes set k's inputs into it and
    poisons the outputs, and after it compares every input with the parent's copy (the
    behaviour before issue 12).
``resident``
    every set's ``in`` arrays have their own region, written once and shared by every solution
    of the (task, size); before a call only what a call may change is rewritten (``inout``
    arrays) or poisoned (``out``). After each call a sample of every large input (whole for
    small ones) is compared with the parent's copy, and :meth:`SharedBuffers.verify` compares
    them all in full after the solution's calls, restoring what changed.
"""

from __future__ import annotations

import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from strategylens.dtypes import np_dtype
from strategylens.harness.validate import POISON_BYTE, same_bytes

PAGE = 4096
CHECK_CHUNK = 16 << 20  # bytes per piece of a threaded full comparison


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


def _max_elements(p: dict, sets: list[InputSet]) -> int:
    n = 0
    for s in sets:
        arr = s.inputs.get(p["name"]) if p["direction"] != "out" else s.expected.get(p["name"])
        if arr is None:
            arr = s.inputs.get(p["name"])
        if arr is not None:
            n = max(n, np.asarray(arr).size)
    return n


def layout_for(params: list[dict], sets: list[InputSet],
               resident: bool = False) -> tuple[list[dict], int]:
    """Offsets of every array in the shared buffer, page-aligned and sized for the largest set.

    Each array parameter gets ``offsets``: one region per input set for an ``in`` array when
    ``resident``, else one region (``offset``, ``nbytes`` name the first)."""
    offset, layout = 0, []
    for p in params:
        entry = dict(p)
        if p["kind"] == "array":
            nbytes = max(_max_elements(p, sets) * np_dtype(p["dtype"]).itemsize, 1)
            regions = len(sets) if (resident and p["direction"] == "in") else 1
            offsets = []
            for _ in range(regions):
                offsets.append(offset)
                offset += (nbytes + PAGE - 1) // PAGE * PAGE
            entry.update(offset=offsets[0], nbytes=nbytes, offsets=offsets)
        layout.append(entry)
    return layout, max(offset, PAGE)


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    """The input comparison before issue 12: values, NaN equal to NaN (slow on floats)."""
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


class SharedBuffers:
    """One memfd holding the arrays of a (task, size), and the parent's mapping of it.

    ``check_bytes``: in resident mode, arrays up to this size are compared whole after every
    call, larger ones by ``check_pages`` random pages plus their first and last page.
    ``threads`` split the full comparisons of :meth:`verify`.
    """

    def __init__(self, params: list[dict], sets: list[InputSet], resident: bool = False,
                 check_bytes: int = 8 << 20, check_pages: int = 16, threads: int = 1,
                 key: str = "io") -> None:
        self.params, self.sets, self.resident, self.key = params, sets, resident, key
        self.check_bytes, self.check_pages, self.threads = check_bytes, check_pages, threads
        self.layout, self.size = layout_for(params, sets, resident)
        self.by_name = {p["name"]: p for p in self.layout if p["kind"] == "array"}
        self.memfd = os.memfd_create(f"sl-{key}", 0)
        os.ftruncate(self.memfd, self.size)
        self.shm = mmap.mmap(self.memfd, self.size)
        self.rng = np.random.default_rng()  # sample positions the solution cannot predict
        if resident:
            for k in range(len(sets)):
                self.restore(k)

    def setup(self) -> dict:
        """What the child needs to map the buffer (one entry of ``setup["layouts"]``); a
        resident buffer is mapped in full at once (see ``child._prefault``)."""
        return {"memfd": self.memfd, "mem_size": self.size, "params": self.layout,
                "prefault": self.resident}

    def view(self, name: str, n: int, slot: int = 0) -> np.ndarray:
        p = self.by_name[name]
        offsets = p["offsets"]
        return np.frombuffer(self.shm, dtype=np_dtype(p["dtype"]), count=n,
                             offset=offsets[slot if slot < len(offsets) else 0])

    def arrays(self, directions: tuple[str, ...]) -> list[dict]:
        return [p for p in self.params if p["kind"] == "array" and p["direction"] in directions]

    def scalars(self, k: int) -> dict:
        s = self.sets[k]
        return {p["name"]: scalar_value(s.inputs.get(p["name"])) for p in self.params
                if p["kind"] == "scalar"}

    def slot(self, k: int) -> int:
        """The input region a call on set k reads."""
        return k if self.resident else 0

    def load(self, k: int) -> int:
        """Make the buffer ready for a call on set k: inputs in place (``rewrite``: every input;
        ``resident``: the inout arrays), outputs poisoned. Returns the input slot."""
        s = self.sets[k]
        rewrite = ("in", "inout") if not self.resident else ("inout",)
        for p in self.arrays(rewrite + ("out",)):
            v = self.view(p["name"], array_length(s, p), self.slot(k))
            if p["direction"] == "out":
                v.view(np.uint8)[:] = POISON_BYTE
            else:
                v[:] = np.asarray(s.inputs[p["name"]]).ravel()
        return self.slot(k)

    def restore(self, k: int) -> None:
        """Write set k's ``in`` arrays into its region again."""
        s = self.sets[k]
        for p in self.arrays(("in",)):
            self.view(p["name"], array_length(s, p), self.slot(k))[:] = \
                np.asarray(s.inputs[p["name"]]).ravel()

    def outputs(self, k: int) -> dict[str, np.ndarray]:
        """Views of the outputs the call on set k wrote (those the answer has)."""
        s = self.sets[k]
        return {p["name"]: self.view(p["name"], array_length(s, p))
                for p in self.arrays(("out", "inout")) if p["name"] in s.expected}

    def inputs_changed(self, k: int) -> bool:
        """Whether the last call changed an ``in`` array of set k: a whole comparison in
        ``rewrite`` mode and for small arrays, a sample of pages for large resident ones."""
        s = self.sets[k]
        for p in self.arrays(("in",)):
            n = array_length(s, p)
            got = self.view(p["name"], n, self.slot(k))
            want = np.asarray(s.inputs[p["name"]]).ravel()
            if not self.resident:
                if not _equal(got, want):
                    return True
                continue
            if got.nbytes <= self.check_bytes:
                if not same_bytes(got, want):
                    return True
                continue
            per_page = max(1, PAGE // got.itemsize)
            pages = (n + per_page - 1) // per_page
            picks = {0, pages - 1, *self.rng.integers(0, pages, self.check_pages).tolist()}
            for i in picks:
                lo = i * per_page
                if not same_bytes(got[lo:lo + per_page], want[lo:lo + per_page]):
                    return True
        return False

    def verify(self, sets: list[int] | None = None) -> list[int]:
        """Compare every ``in`` array of the given sets (default all) with the parent's copy,
        byte for byte; restore the sets that differ and return them."""
        changed = []
        for k in range(len(self.sets)) if sets is None else sets:
            s = self.sets[k]
            pieces = []
            for p in self.arrays(("in",)):
                got = self.view(p["name"], array_length(s, p), self.slot(k))
                want = np.asarray(s.inputs[p["name"]]).ravel()
                step = max(1, CHECK_CHUNK // got.itemsize)
                pieces += [(got[lo:lo + step], want[lo:lo + step])
                           for lo in range(0, got.size, step)]
            if self.threads > 1 and len(pieces) > 1:
                with ThreadPoolExecutor(self.threads) as pool:  # numpy compares without the GIL
                    same = all(pool.map(lambda ab: same_bytes(*ab), pieces))
            else:
                same = all(same_bytes(a, b) for a, b in pieces)
            if not same:
                self.restore(k)
                changed.append(k)
        return changed

    def close(self) -> None:
        try:
            self.shm.close()
        except BufferError:  # a numpy view still refers to it; it closes when collected
            pass
        try:
            os.close(self.memfd)
        except OSError:
            pass
