"""PAR-05 privatized accumulation: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import call_args, inside, walk


def _accumulated_in_loop(model, fn, loop) -> dict[str, str]:
    """Local variables updated from their own value inside ``loop`` with data (not shuffles or
    shared-memory reads): ``v += x``, ``v++``, ``v = fmaxf(v, x)``, ``v[k] += x``; mapped to the
    kind of combination ('add', 'min', 'max', 'bits' or '?')."""
    out: dict[str, str] = {}
    shared = model.shared_names(fn)
    for n in walk(loop.node.child_by_field_name("body")):
        target = value = None
        if n.type == "assignment_expression":
            target, value = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = model.text_of(n.child_by_field_name("operator"))
            name = model.base_name(target)
            if name is None or (op == "=" and name not in model.identifiers(value)):
                continue
            vt = model.text_of(value)
            kind = {"+=": "add", "-=": "add", "|=": "bits", "&=": "bits", "^=": "bits"}.get(op)
            if kind is None:
                kind = "min" if re.search(r"\bf?min", vt) else "max" if re.search(r"\bf?max", vt) \
                    else "add" if re.search(r"\b" + re.escape(name) + r"\s*[+-]", vt) else "?"
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
            name = model.base_name(target)
            kind = "add"
        else:
            continue
        if name is None or name == loop.var:
            continue
        if value is not None:
            vt = model.text_of(value)
            if "shfl" in vt or any(model.base_name(x) in shared for x in walk(value)
                                   if x.type == "subscript_expression"):
                continue
        out[name] = kind
    return out


class PrivatizedAccumulation(Detector):
    id = "PAR-05"

    def detect(self, model):
        for fn in model.gpu_functions():
            reported: set[int] = set()
            for f in self._shared_copies(model, fn):
                reported.add(f.line_start)
                yield f
            for f in self._register_partials(model, fn):
                if f.line_start not in reported:
                    reported.add(f.line_start)
                    yield f

    @staticmethod
    def _shared_copies(model, fn):
        shared = model.shared_names(fn)
        calls = [c for c in model.calls_in(fn) if c.category == "atomic"]
        private = set()
        first_line: dict[str, int] = {}
        for c in calls:
            args = call_args(c.node)
            name = model.base_name(args[0]) if args else None
            if name in shared:
                private.add(name)
                first_line.setdefault(name, c.line)
        if not private:
            return
        carried = model.derived(fn, private)  # private counts read into locals (`c = s[b]`)
        for c in calls:
            args = call_args(c.node)
            name = model.base_name(args[0]) if args else None
            if name in shared or len(args) < 2:
                continue
            if model.identifiers(args[1]) & carried and c.line > min(first_line.values()):
                yield Finding.at(c.node, 0.9)
        for a in model.accesses_in(fn):
            if a.is_write and a.space in ("global", "unknown"):
                stmt = a.node.parent
                if stmt is not None and stmt.type == "assignment_expression":
                    if model.identifiers(stmt.child_by_field_name("right")) & carried:
                        yield Finding.at(a.node, 0.85)

    @staticmethod
    def _register_partials(model, fn):
        locals_ = {name for name, _, stmt in model.assignments(fn) if stmt.type == "init_declarator"}
        locals_ |= {v.name for v in model.vars_in(fn, space="register_array")}
        shuffle_fns = {g for g in model.call_graph.get(fn.name, set())
                       if any(c.category == "shuffle" for c in model.calls_in(g))}
        reducing = {v.name for v in model.vars_in(fn, space="shared")
                    if any(model.tree_combine(lp, {v.name}) for lp in model.loops_in(fn))
                    or (v.size_bytes is not None and v.dims and all(d is not None and d <= 64 for d in v.dim_values))}
        merges = {"atomicAdd": "add", "atomicSub": "add", "atomicMin": "min", "atomicMax": "max",
                  "atomicOr": "bits", "atomicAnd": "bits", "atomicXor": "bits"}
        for loop in model.loops_in(fn):
            if loop.trip_count is not None and loop.trip_count <= 32:
                continue  # a small fixed window (stencil taps), not many elements
            accs = {k: v for k, v in _accumulated_in_loop(model, fn, loop).items() if k in locals_}
            if not accs:
                continue
            for c in model.calls_in(fn):
                if c.line <= loop.line_end or inside(c.node, loop.node):
                    continue
                args = call_args(c.node)
                if c.category == "atomic" and len(args) >= 2:
                    hit = model.identifiers(args[1]) & set(accs)
                    kind = merges.get(c.name.split("_")[0])
                    if hit and all(accs[h] in (kind, "?") for h in hit):
                        yield Finding.at(c.node, 0.8)
                        return
                if (c.category == "shuffle" or c.name in shuffle_fns) and \
                        any(model.identifiers(a) & set(accs) for a in args):
                    yield Finding.at(c.node, 0.6)
                    return
            for a in model.accesses_in(fn):
                if a.is_write and a.array in reducing and a.line > loop.line_end:
                    stmt = a.node.parent
                    if stmt is not None and stmt.type == "assignment_expression" and \
                            model.identifiers(stmt.child_by_field_name("right")) & set(accs):
                        yield Finding.at(a.node, 0.65)
                        return
