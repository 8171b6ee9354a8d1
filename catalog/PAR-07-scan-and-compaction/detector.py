"""PAR-07 scan and compaction: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import (halving_or_doubling, inside, library_call, squash, subscript_index,
                                walk)


_SCAN_CALLS = {"inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "exclusive_scan_by_key",
               "transform_inclusive_scan", "transform_exclusive_scan", "copy_if", "remove_if",
               "remove_copy_if", "partition", "stable_partition", "partition_copy",
               "stable_partition_copy", "unique", "unique_copy", "unique_by_key",
               "ExclusiveSum", "InclusiveSum", "ExclusiveScan", "InclusiveScan",
               "ExclusiveSumByKey", "InclusiveSumByKey", "Flagged", "If", "Unique"}


class ScanAndCompaction(Detector):
    id = "PAR-07"

    def detect(self, model):
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if library_call(call, _SCAN_CALLS) or call.category == "block_scan" or (
                        call.category == "shuffle" and call.unqualified in _SCAN_CALLS):
                    yield Finding.at(call.node, 0.85)
                elif re.search(r"\b(BlockScan|WarpScan)\b", model.text_of(call.node)):
                    yield Finding.at(call.node, 0.8)
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            shared = model.shared_names(fn)
            for loop in model.loops_in(fn):
                if loop.var is None or not halving_or_doubling(loop):
                    continue
                body = loop.node.child_by_field_name("body")
                if loop.step_op in ("<<", "*") or any(s in squash(loop.step or "") for s in ("<<=1", "*=2")):
                    if loop.has_sync and self._reads_back(model, body, loop.var, shared, tiv):
                        yield Finding.at(loop.node, 0.8)
                        continue
                if any(c.category == "shuffle" and "up" in c.name for c in model.calls_in(fn)
                       if inside(c.node, loop.node)):
                    yield Finding.at(loop.node, 0.7)
            yield from self._up_down_sweep(model, fn, shared)

    @staticmethod
    def _up_down_sweep(model, fn, shared):
        """Blelloch scan: an up-sweep and a down-sweep loop (one halving, one doubling, both
        with barriers) that each add one shared element into another (``t[bi] += t[ai]``)."""
        sweeps = []
        for loop in model.loops_in(fn):
            if not (loop.has_sync and halving_or_doubling(loop)) or model.tree_combine(loop, shared):
                continue
            for n in walk(loop.node.child_by_field_name("body")):
                if n.type == "assignment_expression" and model.text_of(n.child_by_field_name("operator")) == "+=":
                    arr = model.base_name(n.child_by_field_name("left"))
                    if arr in shared:
                        sweeps.append((loop, arr))
                        break
        ops = {(lp.step_op in (">>", "/")) for lp, _ in sweeps}
        arrays = [a for _, a in sweeps]
        if len(sweeps) >= 2 and ops == {True, False} and len(set(arrays)) < len(arrays):
            yield Finding.at(sweeps[0][0].node, 0.75)

    @staticmethod
    def _reads_back(model, body, var, shared, tiv) -> bool:
        """A shared array read at ``<thread index> - var``."""
        for x in walk(body):
            if x.type == "subscript_expression" and model.base_name(x) in shared:
                idx = subscript_index(x)
                for b in walk(idx):
                    if b.type == "binary_expression" and model.text_of(b.child_by_field_name("operator")) == "-":
                        left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
                        if model.identifiers(right) == {var} and model.identifiers(left) & tiv:
                            return True
        return False
