"""MEM-08 bank conflict avoidance: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, nodes_of, strip, subscript_indices


class BankConflictAvoidance(Detector):
    id = "MEM-08"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            for v in model.vars_in(fn, space="shared"):
                if len(v.dims) >= 2 and self._padded(model, fn, v) and \
                        self._column_walk(model, fn, v.name):
                    yield Finding(v.line, v.line, 0.85, None, f"{v.name} padded")
                elif len(v.dims) == 1 and self._padded_rows(model, fn, v.name):
                    yield Finding(v.line, v.line, 0.75, None,
                                  f"{v.name} rows padded through a named stride")
        shared = {(v.function, v.name) for v in model.vars if v.space == "shared"}
        seen = set()
        for a in model.accesses_in():
            if a.space != "shared" or a.function not in model.reachable:
                continue
            if (a.function, a.array) not in shared and (None, a.array) not in shared:
                continue
            fn = model.function_of(a.function)
            if any(self._swizzled(model, fn, ix) for ix in subscript_indices(a.node)) and \
                    a.line not in seen:
                seen.add(a.line)
                yield Finding(a.line, a.line, 0.8, None, f"{a.array} swizzled index")

    @staticmethod
    def _column_walk(model, fn, name) -> bool:
        """Some access lets the thread index pick a row other than the last dimension, so lanes
        of a warp walk a column: the case padding exists for. (A DP table ``[3][N + 1]`` read
        along its rows is padded for a boundary, not for banks.)"""
        tiv = model.thread_index_vars(fn) | {"threadIdx"}
        for a in model.accesses_in(fn):
            if a.array != name:
                continue
            idxs = subscript_indices(a.node)
            if len(idxs) >= 2 and any(model.identifiers(ix) & tiv or model.uses_thread_index(ix)
                                      for ix in idxs[:-1]):
                return True
        return False

    @staticmethod
    def _padded(model, fn, v) -> bool:
        sizes = []
        for d in nodes_of(v.node, "array_declarator"):
            sizes.append(d.child_by_field_name("size"))
        sizes = [s for s in sizes if s is not None]
        if len(sizes) < 2:
            return False
        # nodes_of yields outer declarators first: the outermost array_declarator holds the
        # last written extent
        last, prev = sizes[0], sizes[1]
        lt, pt = model.text_of(strip(last)), model.text_of(strip(prev))
        s = strip(last)
        if s is not None and s.type == "binary_expression" and \
                model.text_of(s.child_by_field_name("operator")) == "+" and \
                model.eval_int(s.child_by_field_name("right"), fn) == 1:
            return lt != pt
        lv, pv = model.eval_int(last, fn), model.eval_int(prev, fn)
        return lv is not None and lv > 8 and lv % 2 == 1 and (lv - 1) % 8 == 0 and lv != pv

    @staticmethod
    def _padded_rows(model, fn, name) -> bool:
        """A flat shared array indexed ``row * LD + col`` where the row stride is a named
        constant one past a multiple of 8 (``constexpr int LD = TILE + 1``) and some access
        lets the thread index pick the row: rows padded against conflicts in a column walk."""
        tiv = model.thread_index_vars(fn) | {"threadIdx"}
        for a in model.accesses_in(fn):
            if a.array != name or a.index_node is None:
                continue
            for n in nodes_of(a.index_node, "binary_expression"):
                if model.text_of(n.child_by_field_name("operator")) != "*":
                    continue
                for row, ld in ((n.child_by_field_name("left"), n.child_by_field_name("right")),
                                (n.child_by_field_name("right"), n.child_by_field_name("left"))):
                    ld = strip(ld)
                    if ld is None or ld.type != "identifier":
                        continue
                    v = model.eval_int(ld, fn)
                    if v is not None and v > 8 and v % 2 == 1 and (v - 1) % 8 == 0 and (
                            model.identifiers(row) & tiv or model.uses_thread_index(row)):
                        return True
        return False

    @staticmethod
    def _butterfly(model, fn, xor) -> bool:
        """``i ^ j`` with ``j`` the variable of a loop that doubles or halves it (a bitonic or
        FFT partner): an exchange between two elements, not a swizzle against bank conflicts."""
        names = {model.text_of(strip(xor.child_by_field_name(side))) for side in ("left", "right")}
        return fn is not None and any(
            lp.function == fn.name and lp.var in names and (lp.step_op, lp.step_value) in (
                ("*", 2), ("/", 2), ("<<", 1), (">>", 1)) for lp in model.loops)

    @classmethod
    def _swizzled(cls, model, fn, ix) -> bool:
        for name in model.identifiers(ix):  # through a local: sw = x ^ (y % 32); s[r + sw]
            if fn is not None and any(
                    model.text_of(b.child_by_field_name("operator")) == "^" and
                    not cls._butterfly(model, fn, b)
                    for value in model.initialisers(fn, name)
                    for b in nodes_of(value, "binary_expression")):
                return True
        for n in nodes_of(ix, "binary_expression"):
            op = model.text_of(n.child_by_field_name("operator"))
            if op == "^" and not cls._butterfly(model, fn, n):
                return True
            if op == "+":
                a, b = strip(n.child_by_field_name("left")), strip(n.child_by_field_name("right"))
                for x, y in ((a, b), (b, a)):
                    if y is not None and y.type == "binary_expression":
                        yop = model.text_of(y.child_by_field_name("operator"))
                        k = model.eval_int(y.child_by_field_name("right"), fn)
                        if model.text_of(strip(y.child_by_field_name("left"))) == model.text_of(x) and (
                                (yop == ">>" and k in (4, 5)) or (yop == "/" and k in (16, 32))):
                            return True
        return False
