"""MEM-03 register blocking: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, enclosing_loops, nodes_of, subscript_indices


class RegisterBlocking(Detector):
    id = "MEM-03"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        loops = {(lp.node.start_byte, lp.node.end_byte): lp for lp in model.loops}
        for fn in model.gpu_functions():
            if fn.body is None:
                continue
            for v in model.vars_in(fn, space="register_array"):
                if not v.dims:
                    continue
                count: int | None
                if any(d is None for d in v.dim_values):
                    # template-sized (``float acc[TM][TN]``): its size in each instantiation
                    size = " * ".join(f"({d})" for d in v.dims)
                    sizes = model.instance_values(size, fn) or []
                    sizes = [c for c in sizes if 2 <= c <= 64]
                    if sizes:
                        count = max(sizes)
                    elif all(d for d in v.dims) and model.compile_time(size, fn):
                        count = None  # template values unknown: a compile-time size all the same
                    else:
                        continue
                else:
                    count = 1
                    for d in v.dim_values:
                        count *= d
                if count is not None and not 2 <= count <= 64:
                    continue
                if self._accumulated(model, fn, v.name, loops):
                    if count is None:
                        yield Finding(v.line, v.line, 0.65, None,
                                      f"{v.name}: accumulators in registers, template-sized")
                    else:
                        yield Finding(v.line, v.line, 0.75, float(count),
                                      f"{v.name}: {count} accumulators in registers")

    def _accumulated(self, model, fn, name, loops) -> bool:
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = n.child_by_field_name("left")
            if left is None or left.type != "subscript_expression" or model.array_name(left) != name:
                continue
            op = model.text_of(n.child_by_field_name("operator"))
            rhs = n.child_by_field_name("right")
            if op == "=":
                same = any(model.text_of(s) == model.text_of(left)
                           for s in nodes_of(rhs, "subscript_expression"))
                if not same or (rhs.type == "binary_expression" and
                                model.text_of(rhs.child_by_field_name("operator")) == "^"):
                    continue
            elif op not in ("+=", "-=", "*=", "|=", "&="):  # ^= mixes a state (hashes, ciphers)
                continue
            idx_ids = set()
            for ix in subscript_indices(left):
                idx_ids |= model.identifiers(ix)
            enclosing = [loops.get((a.start_byte, a.end_byte)) for a in enclosing_loops(n, fn)]
            enclosing = [lp for lp in enclosing if lp is not None]
            const_vars = {lp.var for lp in enclosing if lp.var and (
                lp.trip_count is not None or lp.bound_value is not None
                or model.trip_counts(lp) is not None or model.static_trip(lp))}
            ok = all(i in const_vars or model.eval_int(i, fn) is not None for i in idx_ids)
            reuse = any(lp.var not in idx_ids for lp in enclosing if lp.var) or any(
                lp.var is None for lp in enclosing)
            if ok and reuse:
                return True
        return False
