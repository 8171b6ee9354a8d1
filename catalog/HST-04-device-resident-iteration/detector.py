"""HST-04 device resident iteration: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (Launch, Loop, Node, ProgramModel, call_args, copy_direction,
                                inside, runs_every_iteration, walk)


_SETS_DEVICE = re.compile(r"set_?(device|gpu)", re.I)


_INTEGER = re.compile(r"\b(int|unsigned|long|short|size_t|u?int\d+_t)\b")


def stage_loop(model: ProgramModel, loop: Loop) -> bool:
    """A while/do loop whose controlling variable shrinks or grows geometrically in the body
    (``blocks = (blocks + B - 1) / B``, ``n >>= 1``): a multi-pass reduction or scan, not an
    iteration of one state."""
    cond = loop.node.child_by_field_name("condition")
    names = model.identifiers(cond)
    body = loop.node.child_by_field_name("body")
    if not names or body is None:
        return False
    geometric = ("/", ">>", "*", "<<")

    def has_geometric(node: Node | None, depth: int = 0) -> bool:
        if node is None:
            return False
        for n in walk(node):
            if n.type == "binary_expression" and model.text_of(
                    n.child_by_field_name("operator")) in geometric:
                return True
        if depth < 1:
            for d in walk(body):
                if d.type == "init_declarator" and model.root_identifier(
                        d.child_by_field_name("declarator")) in model.identifiers(node):
                    if has_geometric(d.child_by_field_name("value"), depth + 1):
                        return True
        return False

    # a copy of another variable (prev = blocks.x): that variable controls the loop too
    for n in walk(body):
        right = n.child_by_field_name("right") if n.type == "assignment_expression" else None
        if right is not None and right.type in ("identifier", "field_expression") and \
                model.text_of(n.child_by_field_name("left")) in names:
            names = names | {model.text_of(right)}
    for n in walk(body):
        if n.type != "assignment_expression":
            continue
        left = model.text_of(n.child_by_field_name("left"))
        if left not in names:
            continue
        op = model.text_of(n.child_by_field_name("operator"))
        if op in ("/=", ">>=", "*=", "<<=") or (op == "=" and has_geometric(
                n.child_by_field_name("right"))):
            return True
    return False


def _scaled_offset(model: ProgramModel, launch: Launch, counters: set[str]) -> bool:
    """An integer kernel parameter given the loop index times a size (``i * nThreads *
    nBlocks``): the offset of the chunk this pass covers, not a step number."""
    kernel = model.function_of(launch.kernel)
    if kernel is None:
        return False
    for arg, param in zip(call_args(launch.node), kernel.params, strict=False):
        if param.is_pointer or not _INTEGER.search(param.type_text) or \
                arg.type != "binary_expression" or \
                model.text_of(arg.child_by_field_name("operator")) not in ("*", "<<"):
            continue
        if model.identifiers(arg) & counters and model.eval_int(model.text_of(arg), kernel) is None:
            return True
    return False


def outermost(loops: Iterable[Loop]) -> list[Loop]:
    """Loops not nested in another loop of the same collection."""
    loops = list(loops)
    return [lp for lp in loops
            if not any(o is not lp and inside(lp.node, o.node) for o in loops)]


class DeviceResidentIteration(LineDetector):
    id = "HST-04"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        qualifying = [lp for lp in model.host_loops() if self._qualifies(model, lp)]
        for lp in outermost(qualifying):
            if self._device_side_test(model, lp):
                conf, note = 0.85, "state and stopping test stay on the device"
            elif self._staged(model, lp):
                conf, note = 0.55, "launches staged by the loop index (wavefront or time steps)"
            else:
                conf, note = 0.7, "state stays on the device across iterations"
            yield Finding(lp.line_start, lp.line_start, conf, note=note)
        yield from self._persistent(model)

    @staticmethod
    def _persistent(model: ProgramModel) -> Iterator[Finding]:
        """Iterations inside one long-lived kernel: a loop of a reachable kernel whose body
        synchronises the whole grid, so every iteration's state and stopping test stay on the
        device by construction."""
        for k in model.reachable_kernels():
            loops = [lp for lp in model.loops_in(k)
                     if any(c.category == "grid_sync" or c.name.endswith("grid.sync")
                            or (c.name.endswith("sync") and "grid" in c.args[:1])
                            for c in model.calls_in(k)
                            if lp.line_start <= c.line <= lp.line_end)]
            for lp in outermost(loops):
                yield Finding(lp.line_start, lp.line_start, 0.8,
                              note="iterations run inside one kernel with grid-wide barriers")

    @staticmethod
    def _staged(model: ProgramModel, loop: Loop) -> bool:
        """The loop index is passed to the kernels (a wavefront, level or time-step sweep
        rather than repeated application of one update)."""
        counters = model.loop_var_names(loop)
        for item in model.device_work_in(loop):
            if isinstance(item, Launch) and any(
                    model.identifiers(a) & counters for a in call_args(item.node)):
                return True
        return False

    def _qualifies(self, model: ProgramModel, loop: Loop) -> bool:
        work = model.device_work_in(loop)
        if not work:
            return False
        if loop.step_op in ("*", "/", "<<", ">>") or stage_loop(model, loop):
            return False
        if model.round_trips(loop):
            return False
        if any(inside(c.node, loop.node) and _SETS_DEVICE.search(c.name)
               for c in model.reachable_host_calls):
            return False  # a loop over GPUs (cudaSetDevice, getRangeAndSetGPU), not iterations
        counters = model.loop_var_names(loop)
        for c in model.reachable_host_calls:
            if inside(c.node, loop.node) and copy_direction(c) in ("d2h", "h2d") and (
                    runs_every_iteration(loop, c.node)
                    or any(model.identifiers(a) & counters for a in call_args(c.node))):
                return False  # transfers each pass, or chunks that move with the loop
        for c in model.reachable_host_calls:
            if inside(c.node, loop.node) and c.name in model.launching_functions and \
                    runs_every_iteration(loop, c.node) and \
                    any(copy_direction(x) == "d2h" for x in model.calls_in(c.name)) and \
                    not any(lp.function == c.name and model.device_work_in(lp)
                            for lp in model.host_loops()):
                return False  # each pass calls a whole run without a loop of its own (trials)
        if self._batch_loop(model, loop, work):
            return False
        return True

    @staticmethod
    def _batch_loop(model: ProgramModel, loop: Loop, work: list) -> bool:
        """A loop over chunks or batch items: a launch argument offsets a pointer, or indexes
        an array, by the loop variable (or a variable derived from it)."""
        counters = model.loop_var_names(loop)
        if not counters:
            return False
        derived: dict[str, Node] = {}
        body = loop.node.child_by_field_name("body") or loop.node
        for n in walk(body):
            if n.type == "init_declarator":
                name = model.root_identifier(n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
                if name and val is not None:
                    derived[name] = val

        def batchy(node: Node, depth: int = 0) -> bool:
            names = model.identifiers(node)
            if names & counters:
                root = model.root_identifier(node)
                if root in counters:
                    return False
                if any(model.text_of(x.child_by_field_name("operator")) in ("%", "&")
                       for x in walk(node) if x.type == "binary_expression"):
                    return False  # ping-pong by parity
                return True
            if depth < 2:
                for name in names & set(derived):
                    if batchy(derived[name], depth + 1):
                        return True
            return False

        # cursors moved each pass (input += dim): each pass works on the next item
        cursors = set()
        for n in walk(body):
            if n.type == "assignment_expression" and \
                    model.text_of(n.child_by_field_name("operator")) in ("+=", "-="):
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    cursors.add(model.text_of(left))
        owner = model.function_of(loop.function) if loop.function else None
        # pointers only: a scalar advanced each pass (t += dt) is the iteration's own state
        cursors = {c for c in cursors if owner is not None and
                   (t := model.types.type_of(owner, c)) is not None and t[1] >= 1}
        for item in work:
            nodes = call_args(item.node)
            if cursors and any(model.root_identifier(a) in cursors for a in nodes):
                return True
            if isinstance(item, Launch) and item.stream:
                words = set(item.stream.replace("[", " ").replace("]", " ").split())
                if words & counters:
                    return True  # a stream per chunk
            if any(batchy(a) for a in nodes):
                return True
            if isinstance(item, Launch) and _scaled_offset(model, item, counters):
                return True
        return False

    @staticmethod
    def _device_side_test(model: ProgramModel, loop: Loop) -> bool:
        """A convergence flag read on the device, or a check amortised over K iterations."""
        for c in model.reachable_host_calls:
            if inside(c.node, loop.node) and copy_direction(c) == "d2h" \
                    and model.modulo_guard(loop, c.node) is not None:
                return True
        device_flags = {v.name for v in model.vars if v.space == "device"}
        for la in model.launches_of():
            if not inside(la.node, loop.node):
                continue
            fn = model.function_of(la.kernel)
            if fn is not None and fn.body is not None and \
                    model.identifiers(fn.body) & device_flags:
                return True
        return False
