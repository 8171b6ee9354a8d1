"""AP-05 host side compute: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (HOST_SORTS, Loop, Node, ProgramModel, in_condition_part, inside,
                                is_cub_device, is_library_compute, is_thrust_algorithm, product,
                                walk)


_MATH_CALLS = {"sqrt", "sqrtf", "exp", "expf", "log", "logf", "pow", "powf", "fabs", "fabsf",
               "sin", "sinf", "cos", "cosf", "erf", "erff", "erfc", "erfcf", "fmin", "fmax",
               "fminf", "fmaxf", "std::sqrt", "std::exp", "std::log", "std::pow", "std::abs",
               "std::min", "std::max", "hypot", "hypotf", "atan2", "atan2f"}


def _in_index(node: Node) -> bool:
    """Whether ``node`` is inside the index of a subscript (index arithmetic is not compute)."""
    n = node.parent
    child = node
    while n is not None:
        if n.type == "subscript_expression" and n.child_by_field_name("argument") != child:
            return True
        if n.type in ("compound_statement", "expression_statement"):
            return False
        child, n = n, n.parent
    return False


class HostSideCompute(LineDetector):
    id = "AP-05"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        nests = self._host_nests(model)
        if not nests:
            return
        host_order = max(order for order, _ in nests)
        device_order = self._device_order(model)
        if device_order is not None and host_order <= device_order:
            return
        for order, ln in nests:
            if order == host_order:
                yield Finding(ln, ln, 0.8 if device_order is None else 0.7,
                              note=f"host loop nest of depth {order:g} against device "
                                   f"depth {device_order or 0:g}")

    def _host_nests(self, model: ProgramModel) -> list[tuple[float, int]]:
        loops = [lp for lp in model.host_loops()
                 if model.loop_sized(lp) and not model.device_work_in(lp)
                 and not self._fallback(model, lp)]
        computing = [lp for lp in loops if self._computes(model, lp)]
        out = []
        for top in loops:
            if any(o is not top and inside(top.node, o.node) for o in loops):
                continue
            inner = [lp for lp in computing if inside(lp.node, top.node)]
            if not inner:
                continue
            depth = max(sum(1 for o in loops if inside(lp.node, o.node)) for lp in inner)
            out.append((float(depth), top.line_start))
        for c in model.reachable_host_calls:
            if c.name in HOST_SORTS and not self._fallback(model, c) and \
                    not model.sort_orders_device_work(c):
                out.append((1.5, c.line))
        return out

    @staticmethod
    def _fallback(model: ProgramModel, item) -> bool:
        node = item.node
        n = node.parent
        while n is not None:
            if n.type == "if_statement" and not in_condition_part(n, node):
                cond = model.text_of(n.child_by_field_name("condition"))
                cons = n.child_by_field_name("consequence")
                if "<" in cond and cons is not None and inside(node, cons) and any(
                        d.type == "return_statement" for d in walk(cons)):
                    return True
            n = n.parent
        return False

    @staticmethod
    def _computes(model: ProgramModel, loop: Loop) -> bool:
        body = loop.node.child_by_field_name("body")
        if body is None:
            return False
        for n in walk(body):
            if _in_index(n):
                continue
            if n.type == "binary_expression":
                op = model.text_of(n.child_by_field_name("operator"))
                if op in ("+", "-", "*", "/", "<", ">", "<=", ">=") and any(
                        d.type in ("subscript_expression", "call_expression")
                        for d in walk(n)):
                    return True
            elif n.type == "assignment_expression":
                op = model.text_of(n.child_by_field_name("operator"))
                if op in ("+=", "-=", "*=", "/=") and any(
                        d.type in ("subscript_expression", "identifier")
                        for d in walk(n.child_by_field_name("right"))):
                    return True
            elif n.type == "call_expression":
                if model.text_of(n.child_by_field_name("function")) in _MATH_CALLS:
                    return True
        return False

    @staticmethod
    def _device_order(model: ProgramModel) -> float | None:
        best: float | None = None
        for la in model.launches_of():
            fn = model.function_of(la.kernel)
            if fn is None:
                continue
            grid = 0.0 if la.grid_value is not None and product(la.grid_value) == 1 else 1.0
            inner = model.loop_depth_sized(fn)
            if not grid and not inner:
                continue  # a one-block launch without problem-sized loops does no real work
            order = grid + inner + model.host_levels(la)
            best = order if best is None else max(best, order)
        for c in model.reachable_host_calls:
            if is_library_compute(c) or is_thrust_algorithm(c) or is_cub_device(c):
                best = max(best or 0.0, 2.0)
        return best
