"""LBL-06 hybrid cpu gpu split: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import COMPARISONS, Node, call_args, inside, walk


def _launches_within(model, node: Node | None, launching: set[str]) -> bool:
    if node is None:
        return False
    for la in model.launches:
        if inside(la.node, node):
            return True
    for x in walk(node):
        if x.type == "call_expression":
            name = model.text_of(x.child_by_field_name("function"))
            if name in launching or name.startswith(("thrust::", "cub::", "cublas", "cusparse",
                                                     "cufft", "cusolver")):
                return True
    return False


def _host_compute(model, node: Node | None, compute_fns: set[str]) -> bool:
    if node is None:
        return False
    for x in walk(node):
        if x.type in ("for_statement", "while_statement", "do_statement", "for_range_loop"):
            return True
        if x.type == "call_expression":
            name = model.text_of(x.child_by_field_name("function"))
            if name in compute_fns or name in ("qsort", "std::sort", "std::stable_sort",
                                               "std::accumulate", "std::partial_sum",
                                               "std::inclusive_scan", "std::exclusive_scan",
                                               "std::transform", "std::nth_element"):
                return True
    return False


def _ends_with_return(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type == "return_statement":
        return True
    return node.type == "compound_statement" and any(
        c.type == "return_statement" for c in node.named_children)


class HybridCpuGpuSplit(Detector):
    id = "LBL-06"

    def detect(self, model):
        launching = self._launching_functions(model)
        hosts = model.host_only_functions()
        compute_fns = {f.name for f in hosts if f.name not in launching and any(
            True for _ in model.loops_in(f))}
        for fn in hosts:
            yield from self._threshold(model, fn, launching, compute_fns)
            yield from self._host_combine(model, fn)
            yield from self._host_stage(model, fn)
            if fn.name in launching:
                yield from self._host_share(model, fn)

    @staticmethod
    def _host_share(model, fn):
        """A host loop over a partial range (``for (i = n_gpu; i < n; ++i)``) that computes
        elements of an output parameter while the same function launches kernels."""
        outputs = {p.name for p in fn.params if p.is_pointer and not p.is_const}
        for loop in model.loops_in(fn):
            init = loop.node.child_by_field_name("initializer")
            if loop.var is None or init is None or _launches_within(model, loop.node, set()):
                continue
            value = next((x.child_by_field_name("value") for x in walk(init)
                          if x.type == "init_declarator"), None)
            if value is None or model.eval_int(model.text_of(value), fn) is not None:
                continue  # starts at a constant: the whole range, not a share
            for n in walk(loop.node.child_by_field_name("body")):
                if n.type == "assignment_expression":
                    left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                    if model.base_name(left) in outputs and left.type == "subscript_expression" \
                            and right.type not in ("subscript_expression", "identifier", "cast_expression",
                                                   "number_literal"):
                        yield Finding.at(loop.node, 0.7)
                        break

    @staticmethod
    def _host_stage(model, fn):
        """In a host loop of launches, a host loop that updates a buffer copied back from the
        device (``p[i].x += p[i].vx * dt``) which the outer loop copies to the device again: a
        stage of every step runs on the host and the device consumes its result."""
        for outer in model.loops_in(fn):
            if not _launches_within(model, outer.node, set()):
                continue
            copies = [c for c in model.calls_in(fn) if inside(c.node, outer.node)
                      and c.category in ("copy", "copy_async")]
            back = {model.root_identifier(call_args(c.node)[0]) for c in copies
                    if any("DeviceToHost" in a for a in c.args) and c.args}
            sent = {model.root_identifier(call_args(c.node)[1]) for c in copies
                    if any("HostToDevice" in a for a in c.args) and len(c.args) > 1}
            bufs = model.pointer_views(fn.body, back - {None}) & \
                model.pointer_views(fn.body, sent - {None})
            if not bufs:
                continue
            first_back = min(c.line for c in copies if any("DeviceToHost" in a for a in c.args))
            for inner in model.loops_in(fn):
                if inner.parent is None or not inside(inner.node, outer.node) or \
                        inner.line_start < first_back or \
                        _launches_within(model, inner.node, set()):
                    continue
                if any(inside(c.node, inner.node) for c in copies):
                    continue
                if any(n.type == "assignment_expression"
                       and model.text_of(n.child_by_field_name("operator")) != "="
                       and model.base_name(n.child_by_field_name("left")) in bufs
                       for n in walk(inner.node.child_by_field_name("body"))):
                    yield Finding.at(inner.node, 0.6)
                    return

    @staticmethod
    def _launching_functions(model) -> set[str]:
        direct = {la.caller for la in model.launches if la.caller}
        direct |= {c.function for c in model.calls if c.function and c.category in (
            "thrust", "cub", "cublas", "cusparse", "cufft", "cusolver", "coop_launch", "launch_api")}
        found = set(direct)
        changed = True
        while changed:
            changed = False
            for caller, callees in model.call_graph.items():
                if caller not in found and callees & found:
                    found.add(caller)
                    changed = True
        return found

    def _threshold(self, model, fn, launching, compute_fns):
        for n in walk(fn.body):
            if n.type != "if_statement" or not model.is_reachable(n):
                continue
            cond = n.child_by_field_name("condition")
            cmp_ = next((x for x in walk(cond) if x.type == "binary_expression" and
                         model.text_of(x.child_by_field_name("operator")) in COMPARISONS), None)
            if cmp_ is None:
                continue
            sides = [cmp_.child_by_field_name("left"), cmp_.child_by_field_name("right")]
            values = [model.eval_int(model.text_of(s), fn) for s in sides]
            if not any(v is not None and v > 1 for v in values) or all(v is not None for v in values):
                continue
            cons, alt = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
            rest = None
            if _ends_with_return(cons):
                rest = n.parent  # the statements after the if run on the other path
            host_then = _host_compute(model, cons, compute_fns) and not _launches_within(model, cons, launching)
            host_else = alt is not None and _host_compute(model, alt, compute_fns) and \
                not _launches_within(model, alt, launching)
            dev_then = _launches_within(model, cons, launching)
            dev_else = _launches_within(model, alt, launching) or (
                rest is not None and any(_launches_within(model, s, launching)
                                         for s in rest.named_children if s.start_byte > n.end_byte))
            if (host_then and dev_else) or (host_else and dev_then):
                yield Finding.at(n, 0.85)

    @staticmethod
    def _host_combine(model, fn):
        copies = []
        for call in model.calls_in(fn):
            if call.category in ("copy", "copy_async") and any("DeviceToHost" in a for a in call.args) \
                    and call.args:
                dst = call_args(call.node)[0]
                if dst.type == "call_expression":  # vec.data()
                    dst = dst.child_by_field_name("function")
                name = model.base_name(dst)
                if name:
                    copies.append((call.line, name))
        if not copies:
            return
        for loop in model.loops_in(fn):
            if loop.parent is not None:
                continue
            bufs = {name for ln, name in copies if ln < loop.line_start}
            if not bufs or _launches_within(model, loop.node, set()):
                continue
            if any(c.category in ("copy", "copy_async", "alloc") for c in model.calls_in(fn)
                   if inside(c.node, loop.node)):
                continue
            accs = HybridCpuGpuSplit._combines(model, loop.node, bufs)
            if accs and HybridCpuGpuSplit._used(model, fn, loop.node, accs):
                yield Finding.at(loop.node, 0.6)

    @staticmethod
    def _used(model, fn, loop: Node, accs: set[str]) -> bool:
        """The combined values reach something: an array written in the loop, or a later
        statement other than ``(void)x;``."""
        for n in walk(loop.child_by_field_name("body")):
            if n.type == "assignment_expression" and \
                    n.child_by_field_name("left").type in ("subscript_expression", "pointer_expression"):
                return True
        for n in walk(fn.body):
            if n.type == "identifier" and n.start_byte >= loop.end_byte and model.text_of(n) in accs:
                stmt = n.parent
                while stmt is not None and not stmt.type.endswith("statement") and stmt.type != "declaration":
                    stmt = stmt.parent
                if stmt is not None and re.fullmatch(r"\(void\)\s*\w+\s*;", model.text_of(stmt).strip()):
                    continue
                return True
        return False

    @staticmethod
    def _combines(model, loop: Node, bufs: set[str]) -> set[str]:
        """Targets of host computation on a copied-back buffer: compound updates or min/max
        whose value reads the buffer, recurrences (``off[i + 1] = off[i] + cnt[i]``), and
        writes inside inner loops that walk the buffer (a host traversal)."""
        found: set[str] = set()
        body = loop.child_by_field_name("body")
        reads_buf = any(x.type == "subscript_expression" and model.base_name(x) in bufs
                        for x in walk(body))
        inner = [x for x in walk(body) if x.type in ("for_statement", "while_statement", "do_statement")]
        if reads_buf and inner:
            for x in walk(body):
                if x.type == "assignment_expression" and any(inside(x, i) for i in inner):
                    name = model.base_name(x.child_by_field_name("left"))
                    if name and name not in bufs:
                        found.add(name)
        for n in walk(body):
            if n.type != "assignment_expression":
                continue
            op = model.text_of(n.child_by_field_name("operator"))
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            reads = {model.base_name(x) for x in walk(right) if x.type == "subscript_expression"}
            if not reads & bufs or model.base_name(left) in bufs:
                continue
            rt = model.text_of(right)
            target = model.base_name(left)
            if left.type == "subscript_expression" and target in {
                    model.base_name(x) for x in walk(right) if x.type == "subscript_expression"}:
                found.add(target)  # a recurrence over the array being written (host scan)
            elif op in ("+=", "-=", "*=", "|=", "&=", "^=") or \
                    re.search(r"\b(f?max|f?min|std::max|std::min)f?\s*\(", rt) or \
                    (right.type == "conditional_expression" and model.base_name(left) in model.identifiers(right)):
                name = model.base_name(left)
                if name:
                    found.add(name)
        return found
