"""PAR-04 block tree reduction: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, halving_or_doubling, squash, subscript_index, walk


_PLAIN_SHUFFLE = {"__shfl_sync", "__shfl", "shfl", "shfl_sync", "shuffle"}


def _combines(call) -> bool:
    """A shuffle that can combine lanes' values: not a broadcast from a fixed lane
    (``__shfl_sync(mask, v, 0)``, ``shuffle(v, 0)``), which reduces nothing."""
    if call.category != "shuffle":
        return False
    base = call.name.rsplit("::", 1)[-1]
    return not (base in _PLAIN_SHUFFLE and any(re.fullmatch(r"\d+[uU]?", a.strip())
                                               for a in call.args[1:]))


class BlockTreeReduction(Detector):
    id = "PAR-04"

    def detect(self, model):
        for fn in model.gpu_functions():
            shared = model.shared_views(fn)
            found = False
            for loop in model.loops_in(fn):
                if shared and loop.has_sync and halving_or_doubling(loop) and \
                        model.tree_combine(loop, shared):
                    found = True
                    yield Finding.at(loop.node, 0.9)
            for call in model.calls_in(fn):
                if call.category in ("block_reduce", "library_block_reduce") or "BlockReduce" in model.text_of(call.node):
                    found = True
                    yield Finding.at(call.node, 0.8)
                    break
            if not found:
                callees = [model.function_of(g) for g in model.call_graph.get(fn.name, set())]
                helper = any(g is not None and g.is_device and
                             self._unrolled(model, g, model.shared_names(g)) is not None
                             for g in callees)
                unrolled = self._unrolled(model, fn, shared, 1 if helper else 3)
                if unrolled is not None:
                    found = True
                    yield Finding.at(unrolled, 0.85)
            if found or not fn.is_kernel:
                continue
            yield from self._two_level(model, fn)

    @staticmethod
    def _unrolled(model, fn, shared: set[str], steps: int = 3) -> Node | None:
        """A hand-unrolled tree: ``steps`` or more ``s[t] op= s[t + C]`` with different constants
        C on a shared array (or a pointer parameter of a device function); one step is enough
        when a called helper finishes the tree."""
        arrays = set(shared)
        if not fn.is_kernel:
            arrays |= {p.name for p in fn.params if p.is_pointer}
        offsets: dict[str, dict[int, Node]] = {}
        for n in walk(fn.body):
            if n.type != "assignment_expression":
                continue
            left = n.child_by_field_name("left")
            arr = model.base_name(left) if left is not None and left.type == "subscript_expression" else None
            if arr not in arrays:
                continue
            lidx = squash(model.text_of(subscript_index(left) or left)).strip("[]")
            for x in walk(n.child_by_field_name("right")):
                if x.type == "subscript_expression" and model.base_name(x) == arr:
                    ridx = squash(model.text_of(subscript_index(x) or x)).strip("[]")
                    m = re.fullmatch(re.escape(lidx) + r"\+(\w+)", ridx)
                    value = model.eval_int(m.group(1), fn) if m else None
                    if value:
                        offsets.setdefault(arr, {}).setdefault(value, n)
        for by_c in offsets.values():
            if len(by_c) >= steps:
                return min(by_c.values(), key=lambda node: node.start_byte)
        return None

    @staticmethod
    def _two_level(model, fn):
        shuffles = any(_combines(c) for c in model.calls_in(fn))
        callees = model.call_graph.get(fn.name, set())
        shuffles = shuffles or any(_combines(c) for g in callees for c in model.calls_in(g))
        if not shuffles or not any(c.category == "sync_threads" for c in model.calls_in(fn)):
            return
        for v in model.vars_in(fn, space="shared"):
            total = 1
            for d in v.dim_values:
                total = total * d if (d is not None and total is not None) else None
            if not v.dims or total is None or total > 64:
                continue
            acc = [a for a in model.accesses_in(fn) if a.array == v.name]
            if any(a.is_write for a in acc) and any(not a.is_write for a in acc):
                yield Finding(v.line, v.line, confidence=0.7)
