"""HST-01 device buffer reuse: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (Call, Function, Launch, Loop, ProgramModel, call_args, inside,
                                is_host_function, line, walk)


_DEVICE_ALLOCS = {"cudaMalloc", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocAsync",
                  "cudaMallocFromPoolAsync"}


def _aliases(model: ProgramModel, fn: Function | None, name: str) -> set[str]:
    """``name`` and the locals of ``fn`` that point into it (copies, casts, views)."""
    return model.pointer_views(fn.body if fn is not None else None, {name})


def _grown_on_demand(model: ProgramModel, alloc: Call, name: str) -> bool:
    """``if (size > capacity) { cudaFree(buf); cudaMalloc(&buf, size); }``: a kept buffer that
    each call reuses, reallocated only when a request exceeds its size."""
    node = alloc.node.parent
    while node is not None and node.type != "if_statement":
        if node.type in ("function_definition", "for_statement", "while_statement"):
            return False
        node = node.parent
    if node is None:
        return False
    cond = node.child_by_field_name("condition")
    if not any(x.type == "binary_expression" and model.text_of(
            x.child_by_field_name("operator")) in ("<", ">", "<=", ">=") for x in walk(cond)):
        return False
    body = node.child_by_field_name("consequence")
    return any(c.name in ("cudaFree", "cudaFreeAsync") and inside(c.node, body)
               and c.node.start_byte < alloc.node.start_byte and call_args(c.node)
               and model.root_identifier(call_args(c.node)[0]) == name
               for c in model.reachable_host_calls)


class DeviceBufferReuse(LineDetector):
    id = "HST-01"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        static_names = {v.name for v in model.vars if v.space in ("static", "device")}
        loops = [lp for lp in model.host_loops() if model.device_work_in(lp)]
        seen: set[int] = set()
        for c in model.reachable_host_calls:
            if c.name not in _DEVICE_ALLOCS:
                continue
            args = call_args(c.node)
            name = model.root_identifier(args[0]) if args else None
            if name is None or name in static_names or c.line in seen:
                continue
            enclosing = [lp for lp in loops if inside(c.node, lp.node)]
            if c.name in ("cudaMallocAsync", "cudaMallocFromPoolAsync"):
                if enclosing:
                    seen.add(c.line)
                    yield Finding(c.line, c.line, 0.8,
                                  note=f"'{name}' comes from a stream-ordered pool in a loop")
                    continue
            elif enclosing:
                continue  # allocation per iteration
            fn = model.function_of(c.function)
            hit = None
            for lp in loops:
                if lp.function != c.function or lp.node.start_byte < c.node.end_byte:
                    continue
                if self._used_in(model, lp, _aliases(model, fn, name)):
                    hit = lp
                    break
            if hit is None and fn is not None:
                hit = self._reused_by_callee(model, fn, c, name, loops)
            if hit is None and _grown_on_demand(model, c, name):
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.7,
                              note=f"'{name}' is kept and reallocated only when a call needs more")
                continue
            if hit is not None:
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.85 if hit.function == c.function else 0.75,
                              note=f"'{name}' is allocated once and reused by the loop "
                                   f"at line {hit.line_start}")

        yield from self._device_vectors(model, loops, static_names)

    def _device_vectors(self, model: ProgramModel, loops: list[Loop],
                        static_names: set[str]) -> Iterator[Finding]:
        """thrust::device_vector buffers declared outside a loop and used inside it."""
        for fn in model.reachable_functions():
            if not is_host_function(fn) or fn.body is None:
                continue
            for n in walk(fn.body):
                if n.type != "declaration" or "device_vector" not in model.text_of(
                        n.child_by_field_name("type")) or not model.is_reachable(n):
                    continue
                if any(inside(n, lp.node) for lp in loops):
                    continue
                for d in n.children_by_field_name("declarator"):
                    name = model.root_identifier(d.child_by_field_name("declarator")
                                           if d.type == "init_declarator" else d)
                    if name is None or name in static_names:
                        continue
                    if any(lp.function == fn.name and lp.node.start_byte > n.end_byte
                           and self._used_in(model, lp, {name}) for lp in loops):
                        yield Finding(line(n), line(n), 0.8,
                                      note=f"device_vector '{name}' is reused by a loop")
                        break

    @staticmethod
    def _used_in(model: ProgramModel, loop: Loop, names: set[str]) -> bool:
        for item in model.device_work_in(loop):
            nodes = call_args(item.node) if isinstance(item, Launch) else call_args(item.node)
            if any(names & model.identifiers(a) for a in nodes):
                return True
        return False

    def _reused_by_callee(self, model: ProgramModel, fn: Function, alloc: Call, name: str,
                          loops: list[Loop]) -> Loop | None:
        """The buffer is passed to a helper (``run_steps(d_a, d_b, ...)``) whose loop of
        launches uses it: reuse one call level down."""
        for call in model.calls_in(fn):
            if call.node.start_byte < alloc.node.end_byte:
                continue
            callee = model.function_of(call.name)
            if callee is None or callee.is_kernel:
                continue
            for i, arg in enumerate(call_args(call.node)):
                if i >= len(callee.params) or name not in model.identifiers(arg):
                    continue
                names = _aliases(model, callee, callee.params[i].name)
                for lp in loops:
                    if lp.function == callee.name and self._used_in(model, lp, names):
                        return lp
        return None
