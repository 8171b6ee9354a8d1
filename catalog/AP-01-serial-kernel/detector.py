"""AP-01 serial kernel: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (Function, Loop, Node, ProgramModel, in_condition_part, inside,
                                product, walk)


def _parallel_order(model: ProgramModel, launches: list, exclude: str) -> int:
    """Deepest work of the multi-block launches of other kernels: one level for the grid, plus
    their problem-sized loops and the problem-sized host loops around them."""
    best = 0
    for la in launches:
        if la.kernel == exclude or (la.grid_value is not None and product(la.grid_value) == 1):
            continue
        fn = model.function_of(la.kernel)
        if fn is None:
            continue
        best = max(best, 1 + model.loop_depth_sized(fn) + model.host_levels(la))
    return best


def _is_single_thread_test(model: ProgramModel, cond: Node, tvars: set[str]) -> bool:
    """``threadIdx.x == 0``, ``tid == 0``, ``blockIdx.x == 0 && threadIdx.x == 0``..."""
    text = model.text_of(cond)
    if "||" in text:
        return False
    for n in walk(cond):
        if n.type != "binary_expression" or \
                model.text_of(n.child_by_field_name("operator")) != "==":
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if a is None or b is None or model.text_of(b).strip() != "0":
                continue
            at = model.text_of(a).replace(" ", "")
            if at.startswith("threadIdx.") or at in tvars:
                return True
    return False


class SerialKernel(LineDetector):
    id = "AP-01"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        launches = model.launches_of()
        for la in launches:
            if la.grid_value is None or product(la.grid_value) != 1:
                continue
            fn = model.function_of(la.kernel)
            depth = model.loop_depth_sized(fn) if fn is not None else 0
            if not depth:
                continue
            serial = depth + model.host_levels(la)
            if serial < _parallel_order(model, launches, exclude=la.kernel):
                continue
            one_thread = la.block_value is not None and product(la.block_value) == 1
            yield Finding(la.line, la.line, 0.9 if one_thread else 0.75,
                          note=f"{la.kernel} walks the problem in a launch of one "
                               f"{'thread' if one_thread else 'block'}")
        for fn in model.reachable_kernels():
            tvars = model.thread_index_vars(fn)
            loops = [lp for lp in model.loops_in(fn) if model.loop_sized(lp)]
            guarded = [lp for lp in loops if self._single_thread(model, fn, lp, tvars)]
            host = max((model.host_levels(la) for la in launches if la.kernel == fn.name),
                       default=0)
            for lp in guarded:
                if any(o is not lp and inside(lp.node, o.node) for o in guarded):
                    continue
                nest = max(sum(1 for o in loops
                               if inside(o.node, lp.node) and inside(i.node, o.node))
                           for i in loops if inside(i.node, lp.node))
                if nest + host < _parallel_order(model, launches, exclude=fn.name):
                    continue
                yield Finding(lp.line_start, lp.line_start, 0.85,
                              note="one thread loops over the whole problem")

    @staticmethod
    def _single_thread(model: ProgramModel, fn: Function, loop: Loop, tvars: set[str]) -> bool:
        n = loop.node.parent
        while n is not None and n != fn.node:
            if n.type == "if_statement" and not in_condition_part(n, loop.node):
                cond = n.child_by_field_name("condition")
                if cond is not None and _is_single_thread_test(model, cond, tvars):
                    return True
            n = n.parent
        return False
