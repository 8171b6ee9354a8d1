"""AP-04 cross call state: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (Function, Node, ProgramModel, call_args, in_condition_part, inside,
                                is_host_function, walk)


_ALLOC_NAMES = {"cudaMalloc", "cudaMallocHost", "cudaMallocManaged", "cudaHostAlloc",
                "cudaMallocPitch", "cudaMalloc3D", "cudaMallocAsync"}


class CrossCallState(LineDetector):
    id = "AP-04"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        fns = [f for f in model.reachable_functions() if is_host_function(f) and f.body is not None]
        for v in model.vars:
            if v.space != "static" or self._constant(model, v.node):
                continue
            if v.function is not None:
                owner = model.function_of(v.function)
                if owner is None or not is_host_function(owner) or not model.is_reachable(v.node):
                    continue
                scope = [owner]
            else:
                scope = fns
            written = tested = False
            for f in scope:
                w, t = self._uses(model, f, v.name, v.node)
                # a whole program's main runs once and its set-up code before the solution:
                # what they store (flags from argv) does not survive between calls
                written |= w and model.host_role(f) not in ("driver", "setup")
                tested |= t
            if written and tested:
                yield Finding(v.line, v.line, 0.9,
                              note=f"'{v.name}' is kept and tested across calls")
            elif self._kept_allocation(model, scope, v.name):
                yield Finding(v.line, v.line, 0.8,
                              note=f"'{v.name}' holds an allocation that outlives the call")

    @staticmethod
    def _constant(model: ProgramModel, decl: Node) -> bool:
        n = decl
        while n is not None and n.type not in ("declaration", "translation_unit"):
            n = n.parent
        if n is None or n.type != "declaration":
            return False
        for ch in n.children:
            if ch.type in ("type_qualifier", "storage_class_specifier") and \
                    model.text_of(ch) in ("const", "constexpr", "__constant__", "__device__",
                                          "__shared__", "__managed__"):
                return True
        return False

    @staticmethod
    def _uses(model: ProgramModel, fn: Function, name: str, decl: Node) -> tuple[bool, bool]:
        written = tested = False
        for n in walk(fn.body):
            if n.type != "identifier" or model.text_of(n) != name or inside(n, decl):
                continue
            top = n  # climb member and element accesses: g.buf[i] = ... writes g
            while top.parent is not None and top.parent.type in (
                    "field_expression", "subscript_expression") and \
                    top.parent.child_by_field_name("argument") == top:
                top = top.parent
            p = top.parent
            # written: assignment target, ++/--, &name passed on, container update
            if p.type == "assignment_expression" and p.child_by_field_name("left") == top:
                written = True
            elif p.type == "update_expression":
                written = True
            elif p.type == "pointer_expression" and model.text_of(p).startswith("&"):
                written = True
            elif top is not n and top.type == "field_expression" and p.type == "call_expression" \
                    and model.text_of(top.child_by_field_name("field")) in (
                        "push_back", "resize", "assign", "insert", "emplace_back", "clear",
                        "reserve"):
                written = True
            # tested: inside a condition
            a = n.parent
            while a is not None and a != fn.body:
                if a.type in ("if_statement", "while_statement", "conditional_expression",
                              "for_statement", "do_statement") and in_condition_part(a, n):
                    tested = True
                    break
                a = a.parent
        return written, tested

    @staticmethod
    def _kept_allocation(model: ProgramModel, scope: list[Function], name: str) -> bool:
        names = {f.name for f in scope}
        allocs = [c for c in model.reachable_host_calls
                  if c.function in names and c.name in _ALLOC_NAMES and call_args(c.node)
                  and model.root_identifier(call_args(c.node)[0]) == name]
        if not allocs:
            return False
        last = max(c.node.end_byte for c in allocs)
        for c in model.reachable_host_calls:
            if c.function in names and c.category in ("free", "pinned", "async_alloc") and \
                    c.name in ("cudaFree", "cudaFreeHost", "cudaFreeAsync") and call_args(c.node) and \
                    model.root_identifier(call_args(c.node)[0]) == name and c.node.start_byte > last:
                return False
        return True
