"""Problem size: whether an expression or a loop grows with the problem (an integer parameter of
the entry point, followed through call and launch arguments and local initialisers, or a large
constant), and how deep the problem-sized loop nests of kernels and host code go."""

from __future__ import annotations

from tree_sitter import Node

from strategylens.model.host import is_host_function
from strategylens.model.items import Function, Launch, Loop
from strategylens.model.syntax import call_args, inside, walk

_INT_WORDS = ("int", "long", "size_t", "unsigned", "short", "ptrdiff_t", "int64_t", "uint64_t",
              "int32_t", "uint32_t")
_BIG_CONSTANT = 4096


def _size_params(fn: Function) -> set[str]:
    return {p.name for p in fn.params
            if not p.is_pointer and any(w in p.type_text for w in _INT_WORDS)}


def product(values) -> int:
    """The product of ``values`` (a launch's grid or block size from its components)."""
    out = 1
    for v in values:
        out *= v
    return out


class ProblemSize:
    """Problem-size reasoning for the serial-kernel and host-compute anti-patterns."""

    def _call_sites(self, fn: Function) -> list[tuple[Function, list[Node]]]:
        """(caller, argument nodes) for each reachable launch or call of ``fn``."""
        out = []
        for la in self.launches_of():
            if la.kernel == fn.name and la.caller:
                caller = self.function_of(la.caller)
                if caller is not None:
                    out.append((caller, call_args(la.node)))
        for c in self.calls:
            if c.name == fn.name and c.function and self.is_reachable(c.node):
                caller = self.function_of(c.function)
                if caller is not None:
                    out.append((caller, call_args(c.node)))
        return out

    def sized(self, fn: Function, node: Node | None, skip: set[str] = frozenset(),
              depth: int = 0) -> bool:
        """Whether expression ``node`` in ``fn`` grows with the problem: it involves an integer
        parameter of the entry point (followed through call and launch arguments and local
        initialisers) or a constant above 4096, and is not a division (a block count)."""
        if node is None or depth > 4:
            return False
        for n in walk(node):
            if n.type == "binary_expression" and self.text_of(
                    n.child_by_field_name("operator")) in ("/", ">>"):
                return False
        value = self.eval_int(node, fn)
        if value is not None:
            return value > _BIG_CONSTANT
        names = self.identifiers(node) - set(skip)
        params = [p.name for p in fn.params]
        for name in names:
            if name in params:
                if fn.name == self.entry or (not self.entry_found and is_host_function(fn)):
                    if name in _size_params(fn):
                        return True
                    continue
                idx = params.index(name)
                for caller, args in self._call_sites(fn):
                    if idx < len(args) and self.sized(caller, args[idx], depth=depth + 1):
                        return True
                continue
            inits = self.initialisers(fn, name)
            if inits:
                if any(self.sized(fn, v, skip | {name}, depth + 1) for v in inits):
                    return True
                continue
            const = self.eval_int(name, fn)
            if const is not None and const > _BIG_CONSTANT:
                return True
        return False

    def loop_sized(self, loop: Loop) -> bool:
        """Whether ``loop`` runs over a problem-sized range."""
        fn = self.function_of(loop.function) if loop.function else None
        if fn is None:
            return False
        if loop.trip_count is not None:
            return loop.trip_count > _BIG_CONSTANT
        cond = loop.node.child_by_field_name("condition")
        skip = {loop.var} if loop.var else set()
        if self.sized(fn, cond, skip):
            return True
        # A count-down loop (`for (c = capacity; c >= w[i]; --c)`) takes its range from the start.
        init = loop.node.child_by_field_name("initializer")
        return loop.kind == "for" and init is not None and self.sized(fn, init, skip)

    def _device_closure(self, fn: Function) -> list[Function]:
        """``fn`` and the device functions it calls, transitively."""
        out, todo, seen = [], [fn.name], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            f = self.function_of(name)
            if f is None or (f is not fn and not f.is_device):
                continue
            out.append(f)
            todo.extend(self.call_graph.get(name, ()))
        return out

    def loop_depth_sized(self, fn: Function) -> int:
        """Deepest nest of problem-sized loops in ``fn`` and its device callees."""
        best = 0
        for f in self._device_closure(fn):
            loops = [lp for lp in self.loops if lp.function == f.name and self.loop_sized(lp)]
            for lp in loops:
                d = sum(1 for o in loops if inside(lp.node, o.node))
                best = max(best, d)
        return best

    def host_levels(self, launch: Launch) -> int:
        """Problem-sized host loops around a launch."""
        return sum(1 for lp in self.host_loops()
                   if inside(launch.node, lp.node) and self.loop_sized(lp))
