"""LBL-05 balanced partitioning: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import COMPARISONS, Node, call_args, inside, subscript_index, walk


def _midpoint(model, value: Node | None) -> set[str] | None:
    """``{lo, hi}`` when ``value`` is an integer midpoint ``(lo + hi) / 2``, ``(lo + hi) >> 1``
    or ``lo + (hi - lo) / 2``."""
    if value is None:
        return None
    t = re.sub(r"\s", "", model.text_of(value))
    if re.search(r"\d\.\d|\.\d|f\b", t):
        return None
    m = re.fullmatch(r"\(?(\w+)\+(\w+)(?:\+1)?\)?(?:/2|>>1)", t) or \
        re.fullmatch(r"(\w+)\+\((\w+)-\w+(?:\+1)?\)(?:/2|>>1)", t)
    return {m.group(1), m.group(2)} if m else None


def _position(model, node: Node, tiv: set[str]) -> bool:
    """A thread's work position: computed from thread indices without loads."""
    ids = model.identifiers(node)
    return bool(ids & (tiv | {"threadIdx", "blockIdx"})) and not any(
        x.type == "subscript_expression" for x in walk(node))


class BalancedPartitioning(Detector):
    id = "LBL-05"

    def detect(self, model):
        helpers: dict[str, list[tuple[int, Node]]] = {}  # search helpers: key parameter -> loop
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn)
            params = [p.name for p in fn.params]
            for loop, mids in self._searches(model, fn):
                body = loop.node.child_by_field_name("body")
                if self._positional_compare(model, body, mids, tiv):
                    yield Finding.at(loop.node, 0.85)
                elif fn.is_device and not fn.is_kernel:
                    for i, p in enumerate(params):
                        if not fn.params[i].is_pointer and self._positional_compare(model, body, mids, {p}):
                            helpers.setdefault(fn.name, []).append((i, loop.node))
        yield from self._library_searches(model)
        # a search helper called with a thread's share position (merge-path style helpers)
        done: set[int] = set()
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn)
            for call in model.calls_in(fn):
                for i, loop in helpers.get(call.name, []):
                    args = call_args(call.node)
                    if i < len(args) and _position(model, args[i], tiv) and loop.id not in done:
                        done.add(loop.id)
                        yield Finding.at(loop, 0.8)

    @staticmethod
    def _library_searches(model):
        """A library binary search in device code (thrust::upper_bound(thrust::seq, first,
        last, key), std::lower_bound(first, last, key)) whose key is the thread's position."""
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn)
            for call in model.calls_in(fn):
                if call.unqualified not in ("upper_bound", "lower_bound") or \
                        not call.name.startswith(("thrust::", "std::", "cuda::std::")):
                    continue
                args = call_args(call.node)
                key = 3 if args and model.text_of(args[0]).startswith("thrust::") else 2
                if key < len(args) and _position(model, args[key], tiv):
                    yield Finding.at(call.node, 0.75)

    @staticmethod
    def _searches(model, fn):
        """``(loop, {mid: {lo, hi}})`` for loops that compute an integer midpoint."""
        assigns = model.assignments(fn)
        for loop in model.loops_in(fn):
            mids = {}
            for name, value, stmt in assigns:
                if inside(stmt, loop.node):
                    bounds = _midpoint(model, value)
                    if bounds:
                        mids[name] = bounds
            if mids:
                yield loop, mids

    @staticmethod
    def _positional_compare(model, body, mids, tiv) -> bool:
        for b in walk(body):
            if b.type != "binary_expression" or model.text_of(b.child_by_field_name("operator")) not in COMPARISONS:
                continue
            for mid, bounds in mids.items():
                probes = [x for x in walk(b) if x.type == "subscript_expression"
                          and mid in model.identifiers(subscript_index(x))]
                if not probes:
                    continue
                positional = tiv - bounds - {mid}
                outside = set()
                stack = [b]
                while stack:  # identifiers not inside subscripts, plus those in the probes
                    x = stack.pop()
                    if x.type == "subscript_expression" and x not in probes:
                        continue
                    if x.type == "identifier":
                        outside.add(model.text_of(x))
                    stack.extend(x.children)
                if outside & positional:
                    return True
        return False
