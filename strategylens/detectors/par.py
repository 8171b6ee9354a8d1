"""Detectors for the PAR family (parallel organisation), PAR-01 .. PAR-11.

Each detector reads the program model (:mod:`strategylens.model`) and walks the tree-sitter nodes
it exposes; only reachable code counts. The small helpers at the top (assignments, simple
data flow, work-counter classification of atomics) are shared with :mod:`strategylens.detectors.lbl`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from strategylens.detectors import Detector, Finding
from strategylens.model import walk as iter_nodes

# ---------------------------------------------------------------------------------------------
# helpers shared by the PAR and LBL detectors

_LOOP_NODES = {"for_statement", "while_statement", "do_statement", "for_range_loop"}
COMPARISONS = {"<", "<=", ">", ">="}


def walk(node: Node | None) -> Iterable[Node]:
    """``node`` and all its descendants, depth first (comments and strings not entered)."""
    return () if node is None else iter_nodes(node)


def line(node: Node) -> int:
    return node.start_point[0] + 1


def at(node: Node, confidence: float, intensity: float | None = None, note: str = "") -> Finding:
    """A one-line finding at the first line of ``node``."""
    return Finding(line(node), line(node), confidence=confidence, intensity=intensity, note=note)


def identifiers(model, node: Node | None) -> set[str]:
    """Identifier names used in ``node`` (field names excluded)."""
    return {model.text_of(n) for n in walk(node) if n.type == "identifier"}


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def device_functions(model) -> list:
    """Reachable kernels and device functions."""
    return [f for f in model.reachable_functions() if f.is_kernel or f.is_device]


def host_functions(model) -> list:
    """Reachable functions that run on the host."""
    return [f for f in model.reachable_functions() if not f.is_kernel and not f.is_device]


def base_name(model, node: Node | None) -> str | None:
    """The array of a (possibly nested) subscript or the pointer of ``&a[i]`` / ``*p``."""
    while node is not None:
        if node.type == "identifier":
            return model.text_of(node)
        if node.type in ("subscript_expression", "field_expression"):
            node = node.child_by_field_name("argument")
        elif node.type in ("pointer_expression", "parenthesized_expression", "cast_expression",
                           "unary_expression"):
            node = node.child_by_field_name("argument") or node.child_by_field_name("value") \
                or (node.named_children[-1] if node.named_children else None)
        else:
            return None
    return None


def subscript_index(node: Node) -> Node | None:
    idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
    return idx


def assignments(model, fn) -> list[tuple[str, Node, Node]]:
    """``(name, value, statement)`` for every declaration with an initialiser and every
    assignment (plain or compound) to a plain variable in ``fn``'s body (computed once per
    function and kept on the model; do not modify the list)."""
    memo = model.__dict__.setdefault("_assignments_memo", {})
    if fn.name not in memo:
        memo[fn.name] = _assignments(model, fn)
    return memo[fn.name]


def _assignments(model, fn) -> list[tuple[str, Node, Node]]:
    out = []
    for n in walk(fn.body):
        if n.type == "init_declarator":
            d = n.child_by_field_name("declarator")
            v = n.child_by_field_name("value")
            while d is not None and d.type not in ("identifier",) and d.child_by_field_name("declarator"):
                d = d.child_by_field_name("declarator")
            if d is not None and d.type == "identifier" and v is not None:
                out.append((model.text_of(d), v, n))
        elif n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                out.append((model.text_of(left), n.child_by_field_name("right"), n))
    return out


def index_identifiers(model, node: Node | None) -> set[str]:
    """Identifiers of ``node`` outside subscripts: what an index is computed from, leaving out
    values loaded from memory."""
    out, stack = set(), [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "subscript_expression":
            continue
        if n.type == "identifier":
            out.add(model.text_of(n))
        stack.extend(n.children)
    return out


def derived(model, fn, seeds: set[str], through: Iterable | None = None,
            index_only: bool = False) -> set[str]:
    """Names in ``fn`` whose value comes from ``seeds`` through assignments (fixpoint); with
    ``index_only``, values loaded through subscripts do not carry the dependence."""
    found = set(seeds)
    ids_of = index_identifiers if index_only else identifiers
    pairs = [(name, ids_of(model, value)) for name, value, _ in
             (through if through is not None else assignments(model, fn))]
    changed = True
    while changed:
        changed = False
        for name, ids in pairs:
            if name not in found and ids & found:
                found.add(name)
                changed = True
    return found


def receiver_of(model, call: Node) -> str | None:
    """The variable a call's result is stored in (``v = f()``, ``int v = f()``), if any."""
    p = call.parent
    while p is not None and p.type in ("parenthesized_expression", "cast_expression"):
        p = p.parent
    if p is None:
        return None
    if p.type == "init_declarator":
        d = p.child_by_field_name("declarator")
        return model.text_of(d) if d is not None and d.type == "identifier" else None
    if p.type == "assignment_expression" and model.text_of(p.child_by_field_name("operator")) == "=":
        left = p.child_by_field_name("left")
        return model.text_of(left) if left is not None and left.type == "identifier" else None
    return None


def call_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def target_is_scalar(model, fn, target: Node | None) -> bool:
    """Whether an atomic's address argument names one location (``&count``, ``p``,
    ``&c[0]``), not an element picked by a computed index."""
    for n in walk(target):
        if n.type == "subscript_expression":
            idx = subscript_index(n)
            if idx is not None and model.eval_int(model.text_of(idx).strip("[] "), fn) is None:
                return False
    return True


def _breaks_out(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type in ("break_statement", "return_statement"):
        return True
    if node.type == "compound_statement":
        return any(c.type in ("break_statement", "return_statement") for c in node.named_children)
    return False


def atomic_role(model, fn, call) -> str:
    """Classify an atomic call site: ``'work'`` (a counter that hands out work, LBL-01),
    ``'slot'`` (its value reserves an output position), ``'barrier'`` (arrival counter of a
    spin-wait grid barrier) or ``'combine'`` (a result is combined, PAR-06)."""
    base = call.name.rsplit("::", 1)[-1].split(".")[-1]
    args = call_args(call.node)
    target = args[0] if args else None
    if target is not None and identifiers(model, target) & spin_counters(model, fn):
        return "barrier"
    var = receiver_of(model, call.node)
    if var is None or not base.startswith(("atomicAdd", "atomicInc", "atomicSub", "fetch_add")):
        return "combine"
    tainted = derived(model, fn, {var})
    # compared with the work bound to leave a loop or the kernel
    for n in walk(fn.body):
        if n.type in ("while_statement", "for_statement", "do_statement"):
            cond = n.child_by_field_name("condition")
            if cond is not None and identifiers(model, cond) & tainted:
                return "work"
        elif n.type == "if_statement":
            cond = n.child_by_field_name("condition")
            if identifiers(model, cond) & tainted and _breaks_out(n.child_by_field_name("consequence")):
                return "work"
    for acc in model.accesses_in(fn):
        if acc.is_write or acc.index_node is None:
            continue
        if identifiers(model, acc.index_node) & tainted:
            return "work" if target_is_scalar(model, fn, target) else "slot"
    return "slot"


def spin_counters(model, fn) -> set[str]:
    """Names of global counters that ``fn`` spin-waits on (a software barrier)."""
    return {name for loop, name in spin_loops(model, fn)}


def _empty_body(model, body: Node | None) -> bool:
    if body is None:
        return True
    if body.type == "expression_statement" and not body.named_children:
        return True
    if body.type != "compound_statement":
        return False
    for c in body.named_children:
        if c.type == "comment":
            continue
        if c.type == "expression_statement":
            t = model.text_of(c)
            if any(k in t for k in ("__threadfence", "__nanosleep", "__builtin_ia32_pause")):
                continue
        return False
    return True


def spin_loops(model, fn) -> list[tuple[Node, str]]:
    """``(loop, counter)`` for empty-bodied while/do loops that poll a memory location."""
    out = []
    for n in walk(fn.body):
        if n.type not in ("while_statement", "do_statement") or not _empty_body(model, n.child_by_field_name("body")):
            continue
        cond = n.child_by_field_name("condition")
        for x in walk(cond):
            if x.type == "call_expression" and "atomic" in model.text_of(x.child_by_field_name("function")):
                args = call_args(x)
                name = base_name(model, args[0]) if args else None
                if name:
                    out.append((n, name))
                    break
            if x.type in ("pointer_expression", "subscript_expression"):
                name = base_name(model, x)
                if name:
                    out.append((n, name))
                    break
    return out


# ---------------------------------------------------------------------------------------------
# PAR-01

def _mentions_grid_size(model, fn, node: Node | None, grid_vars: set[str]) -> bool:
    text = model.text_of(node) if node is not None else ""
    if "gridDim" in text or re.search(r"\.\s*size\s*\(\s*\)|num_threads\s*\(", text):
        return True
    return bool(identifiers(model, node) & grid_vars)


class GridStrideLoop(Detector):
    """PAR-01: a loop that starts at a thread-dependent index and advances by the grid size."""

    id = "PAR-01"

    def detect(self, model):
        for fn in device_functions(model):
            for loop, conf in self.loops(model, fn):
                yield at(loop.node, conf)

    @classmethod
    def loops(cls, model, fn) -> list:
        """``(loop, confidence)`` for the grid-stride loops of ``fn``."""
        seeds = {name for name, value, _ in assignments(model, fn)
                 if "gridDim" in model.text_of(value) or
                 re.search(r"\.\s*size\s*\(\s*\)|num_threads", model.text_of(value))}
        grid_vars = derived(model, fn, seeds)
        tiv = model.thread_index_vars(fn)
        out = []
        for loop in model.loops_in(fn):
            steps = cls._steps(model, loop)
            if not any(_mentions_grid_size(model, fn, s, grid_vars) for s in steps):
                continue
            start = loop.node.child_by_field_name("initializer")
            updated = {model.text_of(s.parent.child_by_field_name("left")) for s in steps
                       if s.parent is not None and s.parent.type == "assignment_expression"}
            starts_at_thread = (start is not None and model.uses_thread_index(start)) or \
                (loop.var is not None and loop.var in tiv) or \
                (loop.node.type != "for_statement" and bool(updated & tiv))
            if not starts_at_thread:
                continue
            step_text = " ".join(model.text_of(s) for s in steps)
            out.append((loop, 0.7 if re.fullmatch(r"\s*gridDim\.[xyz]\s*", step_text) else 0.95))
        return out

    @staticmethod
    def _steps(model, loop) -> list[Node]:
        """Expressions added to the loop variable each iteration."""
        node = loop.node
        var = loop.var
        if node.type == "for_statement":
            upd = node.child_by_field_name("update")
            cands = [upd] if upd is not None else []
        else:
            cands = []
            cond = node.child_by_field_name("condition")
            names = identifiers(model, cond)
            if var:
                names = {var}
            body = node.child_by_field_name("body")
            for n in walk(body):
                if n.type in _LOOP_NODES and n is not node:
                    continue
                if n.type == "assignment_expression":
                    left = n.child_by_field_name("left")
                    if left is not None and model.text_of(left) in names:
                        cands.append(n)
        steps = []
        for c in cands:
            for n in walk(c):
                if n.type == "assignment_expression":
                    op = model.text_of(n.child_by_field_name("operator"))
                    right = n.child_by_field_name("right")
                    if op == "+=":
                        steps.append(right)
                    elif op == "=" and right is not None:
                        steps.append(right)
        return steps


# ---------------------------------------------------------------------------------------------
# PAR-02

def _branch_path(node: Node) -> list[tuple[int, str]]:
    """The if/else branches enclosing ``node``: ``(id of if node, 'then'|'else')``."""
    path = []
    child, p = node, node.parent
    while p is not None and p.type != "function_definition":
        if p.type == "if_statement":
            cons = p.child_by_field_name("consequence")
            alt = p.child_by_field_name("alternative")
            if cons is not None and cons.start_byte <= child.start_byte and child.end_byte <= cons.end_byte:
                path.append((p.id, "then"))
            elif alt is not None and alt.start_byte <= child.start_byte and child.end_byte <= alt.end_byte:
                path.append((p.id, "else"))
        elif p.type == "conditional_expression":
            path.append((p.id, str(child.start_byte)))
        child, p = p, p.parent
    return path


def _exclusive(a: Node, b: Node) -> bool:
    pa = dict(_branch_path(a))
    return any(k in pa and pa[k] != v for k, v in _branch_path(b))


def _in_atomic(model, node: Node) -> bool:
    p = node.parent
    while p is not None and p.type not in ("expression_statement", "compound_statement"):
        if p.type == "call_expression" and "atomic" in model.text_of(p.child_by_field_name("function")):
            return True
        p = p.parent
    return False


def _single_thread(model, node: Node) -> bool:
    """Inside ``if (threadIdx.x == 0)``-style code run by one thread."""
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type == "if_statement":
            cond = squash(model.text_of(p.child_by_field_name("condition")))
            if re.search(r"==0\b|==\w+-1\)", cond):
                return True
        p = p.parent
    return False


def inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


class ThreadCoarsening(Detector):
    """PAR-02: several outputs per thread, from a constant-trip loop writing a different output
    each iteration or from several stores to one output array at different indices."""

    id = "PAR-02"

    def detect(self, model):
        for fn in device_functions(model):
            writes = [a for a in model.accesses_in(fn)
                      if a.is_write and a.space in ("global", "unknown") and not _in_atomic(model, a.node)]
            if not writes:
                continue
            fixed = self._fixed_loops(model, fn, writes)
            grid_stride = [lp for lp, _ in GridStrideLoop.loops(model, fn)]
            chunks = self._chunk_loops(model, fn, writes, [lp for lp, _ in fixed] + grid_stride)
            for loop in chunks:
                if not any(inside(loop.node, c.node) for c, _ in fixed):
                    yield at(loop.node, 0.7)
            for loop, trips in fixed:
                if any(inside(loop.node, r.node) for r, _ in fixed if r is not loop):
                    continue  # reported with the outer loop
                nested = [t for r, t in fixed if r is not loop and inside(r.node, loop.node)]
                yield at(loop.node, 0.85, float(trips * (max(nested) if nested else 1)))
            yield from self._stores(model, fn, writes, [lp.node for lp, _ in fixed] +
                                    [lp.node for lp in chunks])
            if not fixed:
                yield from self._vector_lanes(model, fn)
            if not fixed and not chunks:
                yield from self._one_block_strides(model, fn)

    @staticmethod
    def _one_block_strides(model, fn):
        """A block-stride loop (``i += blockDim.x`` from ``threadIdx.x``) that writes, in a
        kernel launched only with one block: each thread takes every blockDim.x-th element.
        (A grid-stride loop over a capped grid would be the same by the taxonomy's words, but
        the gold labellers split on it, 7 files against 2, so it is not reported.)"""
        launches = model.launches_of(fn.name)
        if not launches or not all(la.grid_value is not None and
                                   all(v == 1 for v in la.grid_value) for la in launches):
            return
        for lp in model.loops_in(fn):
            if lp.node.type != "for_statement":
                continue
            upd = lp.node.child_by_field_name("update")
            init = lp.node.child_by_field_name("initializer")
            if upd is not None and init is not None and \
                    re.search(r"\+=\s*blockDim\.x\s*$", model.text_of(upd)) and \
                    "threadIdx.x" in model.text_of(init) and \
                    "blockIdx" not in model.text_of(init) and \
                    any(a.is_write and inside(a.node, lp.node) for a in model.accesses_in(fn)):
                yield Finding(lp.line_start, lp.line_start, 0.7, None,
                              "block-stride loop in a one-block launch")

    @staticmethod
    def _vector_lanes(model, fn):
        """Lanes computed in a constant-trip loop into a local array, then stored to global
        memory as one vector (``cv[k] = ...`` for k < 4, then ``out[i] = make_float4(cv[0], ...)``):
        each thread computes several outputs."""
        for loop in model.loops_in(fn):
            trips = loop.trip_count
            if trips is None or trips < 2 or loop.var is None:
                continue
            lanes = {a.array for a in model.accesses_in(fn)
                     if a.is_write and a.space == "local" and inside(a.node, loop.node)
                     and a.index_node is not None and loop.var in identifiers(model, a.index_node)}
            if not lanes:
                continue
            for n in walk(fn.body):
                if n.type != "call_expression":
                    continue
                callee = model.text_of(n.child_by_field_name("function"))
                if not callee.startswith("make_") or callee[-1] not in "24":
                    continue
                args = n.child_by_field_name("arguments")
                used = {model.text_of(a.child_by_field_name("argument")) for a in walk(args)
                        if a.type == "subscript_expression"}
                parent = n.parent
                stored = parent is not None and parent.type == "assignment_expression" and any(
                    w.is_write and w.space in ("global", "unknown") and w.node == parent.child_by_field_name("left")
                    for w in model.accesses_in(fn))
                if used & lanes and stored:
                    yield at(loop.node, 0.7, float(trips), "lanes stored as one vector")
                    return

    @staticmethod
    def _fixed_loops(model, fn, writes) -> list:
        """``(loop, trip count)`` for constant-trip loops writing an output per iteration."""
        out = []
        for loop in model.loops_in(fn):
            # per template instantiation when the bound is a template parameter (``i < TM``)
            counts = model.trip_counts(loop) if loop.var is not None else None
            if not counts or max(counts) < 2:
                continue  # coarsened in at least one instantiation (ROWS = 1, 2, 4, 8)
            trips = max(counts)
            if "gridDim" in (loop.step or "") or "blockDim" in (loop.step or ""):
                continue
            inner = derived(model, fn, {loop.var},
                            [t for t in assignments(model, fn) if inside(t[2], loop.node)])
            if any(inside(w.node, loop.node) and w.index_node is not None
                   and identifiers(model, w.index_node) & inner for w in writes):
                out.append((loop, trips))
        return out

    @staticmethod
    def _chunk_loops(model, fn, writes, fixed) -> list:
        """Loops over a thread's own chunk (``for (i = t * chunk; i < end; ++i) out[i] = ...``):
        the start comes from the thread index without loads and the step is small."""
        out = []
        tiv = model.thread_index_vars(fn)
        for loop in model.loops_in(fn):
            if loop.var is None or any(loop is f for f in fixed):
                continue
            step = loop.step or ""
            if "gridDim" in step or "blockDim" in step or (loop.step_value or 0) > 8:
                continue
            init = loop.node.child_by_field_name("initializer")
            value = next((x.child_by_field_name("value") or x.child_by_field_name("right")
                          for x in walk(init)
                          if x.type in ("init_declarator", "assignment_expression")), None)
            if value is None or any(x.type == "subscript_expression" for x in walk(value)):
                continue
            if not (identifiers(model, value) & tiv or "threadIdx" in model.text_of(value)):
                continue
            if any(inside(w.node, loop.node) and w.index_node is not None and
                   loop.var in identifiers(model, w.index_node) for w in writes):
                out.append(loop)
        return out

    def _stores(self, model, fn, writes, loop_nodes):
        thread_vars = derived(model, fn, {"threadIdx"}, index_only=True) | {"threadIdx"}
        by_array: dict[str, list] = {}
        for w in writes:
            if any(inside(w.node, ln) for ln in loop_nodes) or w.index_node is None:
                continue
            if not identifiers(model, w.index_node) & thread_vars or _single_thread(model, w.node):
                continue
            by_array.setdefault(w.array, []).append(w)
        for array, ws in by_array.items():
            ws.sort(key=lambda a: a.node.start_byte)
            distinct: dict[str, object] = {}
            for w in ws:
                distinct.setdefault(squash(model.text_of(w.index_node)), w)
            read_back = {squash(model.text_of(a.index_node)) for a in model.accesses_in(fn)
                         if a.array == array and not a.is_write and a.index_node is not None}
            if read_back & set(distinct):
                continue  # in-place updates or exchanges (sorting networks), not new outputs
            group = list(distinct.values())
            # stores that all execute together: the same enclosing branches
            path = _branch_path(group[0].node)
            together = [w for w in group if _branch_path(w.node) == path]
            keys = [squash(model.text_of(w.index_node)) for w in together]
            bases = {re.sub(r"\+\d+$", "", k.strip("[]")) for k in keys}
            if len(together) >= 2 and not (len(bases) == 1 and len(together) <= 4):
                yield at(together[0].node, 0.75, float(len(together)))


# ---------------------------------------------------------------------------------------------
# PAR-03

class WarpShuffleCollectives(Detector):
    """PAR-03: warp shuffles and tile collectives in reachable device code."""

    id = "PAR-03"

    def detect(self, model):
        for fn in device_functions(model):
            for call in model.calls_in(fn):
                if call.category == "shuffle":
                    yield at(call.node, 0.95)


# ---------------------------------------------------------------------------------------------
# PAR-04

def shared_names(model, fn) -> set[str]:
    """Shared arrays visible in ``fn`` (its own and file-scope ones)."""
    return {v.name for v in model.vars if v.space == "shared" and v.function in (fn.name, None)}


def _is_halving_or_doubling(loop) -> bool:
    op = loop.step_op or ""
    step = squash(loop.step or "")
    return op in (">>", "/", "<<", "*") or any(s in step for s in (">>=1", "/=2", "<<=1", "*=2"))


def _tree_combine(model, loop, shared: set[str]) -> bool:
    """``s[i] op= s[i + var]`` (or ``s[i] = f(s[i], s[i + var])``) on a shared array."""
    var = loop.var
    if var is None:
        return False
    for n in walk(loop.node.child_by_field_name("body")):
        if n.type != "assignment_expression":
            continue
        left = n.child_by_field_name("left")
        if left is None or left.type != "subscript_expression":
            continue
        arr = base_name(model, left)
        if arr not in shared:
            continue
        for x in walk(n.child_by_field_name("right")):
            if x.type == "subscript_expression" and base_name(model, x) == arr:
                idx = squash(model.text_of(subscript_index(x) or x))
                if re.search(r"\+\(?" + re.escape(var) + r"\b", idx) and "^" not in idx:
                    return True
    return False


class BlockTreeReduction(Detector):
    """PAR-04: a barrier-separated halving combine over a shared array, or per-warp shuffle
    results meeting in a small shared array that one warp reduces again."""

    id = "PAR-04"

    def detect(self, model):
        for fn in device_functions(model):
            shared = shared_names(model, fn)
            found = False
            for loop in model.loops_in(fn):
                if shared and loop.has_sync and _is_halving_or_doubling(loop) and \
                        _tree_combine(model, loop, shared):
                    found = True
                    yield at(loop.node, 0.9)
            for call in model.calls_in(fn):
                if "BlockReduce" in model.text_of(call.node):
                    found = True
                    yield at(call.node, 0.8)
                    break
            if not found:
                callees = [model.function_of(g) for g in model.call_graph.get(fn.name, set())]
                helper = any(g is not None and g.is_device and
                             self._unrolled(model, g, shared_names(model, g)) is not None
                             for g in callees)
                unrolled = self._unrolled(model, fn, shared, 1 if helper else 3)
                if unrolled is not None:
                    found = True
                    yield at(unrolled, 0.85)
            if found or not fn.is_kernel:
                continue
            yield from self._two_level(model, fn)

    @staticmethod
    def _unrolled(model, fn, shared: set[str], steps: int = 3) -> Node | None:
        """A hand-unrolled tree: ``steps`` or more ``s[t] op= s[t + C]`` with different constants
        C on a shared array (or a pointer parameter of a device function); one step is enough
        when a called helper finishes the tree."""
        arrays = set(shared)
        if not fn.is_kernel:
            arrays |= {p.name for p in fn.params if p.is_pointer}
        offsets: dict[str, dict[int, Node]] = {}
        for n in walk(fn.body):
            if n.type != "assignment_expression":
                continue
            left = n.child_by_field_name("left")
            arr = base_name(model, left) if left is not None and left.type == "subscript_expression" else None
            if arr not in arrays:
                continue
            lidx = squash(model.text_of(subscript_index(left) or left)).strip("[]")
            for x in walk(n.child_by_field_name("right")):
                if x.type == "subscript_expression" and base_name(model, x) == arr:
                    ridx = squash(model.text_of(subscript_index(x) or x)).strip("[]")
                    m = re.fullmatch(re.escape(lidx) + r"\+(\w+)", ridx)
                    value = model.eval_int(m.group(1), fn) if m else None
                    if value:
                        offsets.setdefault(arr, {}).setdefault(value, n)
        for by_c in offsets.values():
            if len(by_c) >= steps:
                return min(by_c.values(), key=lambda node: node.start_byte)
        return None

    @staticmethod
    def _two_level(model, fn):
        shuffles = any(c.category == "shuffle" for c in model.calls_in(fn))
        callees = model.call_graph.get(fn.name, set())
        shuffles = shuffles or any(c.category == "shuffle" for g in callees
                                   for c in model.calls_in(g))
        if not shuffles or not any(c.category == "sync_threads" for c in model.calls_in(fn)):
            return
        for v in model.vars_in(fn, space="shared"):
            total = 1
            for d in v.dim_values:
                total = total * d if (d is not None and total is not None) else None
            if not v.dims or total is None or total > 64:
                continue
            acc = [a for a in model.accesses_in(fn) if a.array == v.name]
            if any(a.is_write for a in acc) and any(not a.is_write for a in acc):
                yield Finding(v.line, v.line, confidence=0.7)


# ---------------------------------------------------------------------------------------------
# PAR-05

def _accumulated_in_loop(model, fn, loop) -> dict[str, str]:
    """Local variables updated from their own value inside ``loop`` with data (not shuffles or
    shared-memory reads): ``v += x``, ``v++``, ``v = fmaxf(v, x)``, ``v[k] += x``; mapped to the
    kind of combination ('add', 'min', 'max', 'bits' or '?')."""
    out: dict[str, str] = {}
    shared = shared_names(model, fn)
    for n in walk(loop.node.child_by_field_name("body")):
        target = value = None
        if n.type == "assignment_expression":
            target, value = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = model.text_of(n.child_by_field_name("operator"))
            name = base_name(model, target)
            if name is None or (op == "=" and name not in identifiers(model, value)):
                continue
            vt = model.text_of(value)
            kind = {"+=": "add", "-=": "add", "|=": "bits", "&=": "bits", "^=": "bits"}.get(op)
            if kind is None:
                kind = "min" if re.search(r"\bf?min", vt) else "max" if re.search(r"\bf?max", vt) \
                    else "add" if re.search(r"\b" + re.escape(name) + r"\s*[+-]", vt) else "?"
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
            name = base_name(model, target)
            kind = "add"
        else:
            continue
        if name is None or name == loop.var:
            continue
        if value is not None:
            vt = model.text_of(value)
            if "shfl" in vt or any(base_name(model, x) in shared for x in walk(value)
                                   if x.type == "subscript_expression"):
                continue
        out[name] = kind
    return out


class PrivatizedAccumulation(Detector):
    """PAR-05: private copies (shared-memory histograms, register partials) merged once."""

    id = "PAR-05"

    def detect(self, model):
        for fn in device_functions(model):
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
        shared = shared_names(model, fn)
        calls = [c for c in model.calls_in(fn) if c.category == "atomic"]
        private = set()
        first_line: dict[str, int] = {}
        for c in calls:
            args = call_args(c.node)
            name = base_name(model, args[0]) if args else None
            if name in shared:
                private.add(name)
                first_line.setdefault(name, c.line)
        if not private:
            return
        carried = derived(model, fn, private)  # private counts read into locals (`c = s[b]`)
        for c in calls:
            args = call_args(c.node)
            name = base_name(model, args[0]) if args else None
            if name in shared or len(args) < 2:
                continue
            if identifiers(model, args[1]) & carried and c.line > min(first_line.values()):
                yield at(c.node, 0.9)
        for a in model.accesses_in(fn):
            if a.is_write and a.space in ("global", "unknown"):
                stmt = a.node.parent
                if stmt is not None and stmt.type == "assignment_expression":
                    if identifiers(model, stmt.child_by_field_name("right")) & carried:
                        yield at(a.node, 0.85)

    @staticmethod
    def _register_partials(model, fn):
        locals_ = {name for name, _, stmt in assignments(model, fn) if stmt.type == "init_declarator"}
        locals_ |= {v.name for v in model.vars_in(fn, space="register_array")}
        shuffle_fns = {g for g in model.call_graph.get(fn.name, set())
                       if any(c.category == "shuffle" for c in model.calls_in(g))}
        reducing = {v.name for v in model.vars_in(fn, space="shared")
                    if any(_tree_combine(model, lp, {v.name}) for lp in model.loops_in(fn))
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
                    hit = identifiers(model, args[1]) & set(accs)
                    kind = merges.get(c.name.split("_")[0])
                    if hit and all(accs[h] in (kind, "?") for h in hit):
                        yield at(c.node, 0.8)
                        return
                if (c.category == "shuffle" or c.name in shuffle_fns) and \
                        any(identifiers(model, a) & set(accs) for a in args):
                    yield at(c.node, 0.6)
                    return
            for a in model.accesses_in(fn):
                if a.is_write and a.array in reducing and a.line > loop.line_end:
                    stmt = a.node.parent
                    if stmt is not None and stmt.type == "assignment_expression" and \
                            identifiers(model, stmt.child_by_field_name("right")) & set(accs):
                        yield at(a.node, 0.65)
                        return


# ---------------------------------------------------------------------------------------------
# PAR-06

class AtomicUpdate(Detector):
    """PAR-06: atomic sites that combine results (work counters are LBL-01)."""

    id = "PAR-06"

    def detect(self, model):
        sites = []
        for fn in device_functions(model):
            for call in model.calls_in(fn):
                if call.category == "atomic" and atomic_role(model, fn, call) in ("combine", "slot"):
                    sites.append(call)
        for call in sites:
            yield at(call.node, 0.95, float(len(sites)))


# ---------------------------------------------------------------------------------------------
# PAR-07

_SCAN_CALLS = {"inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "exclusive_scan_by_key",
               "transform_inclusive_scan", "transform_exclusive_scan", "copy_if", "remove_if",
               "remove_copy_if", "partition", "stable_partition", "partition_copy",
               "stable_partition_copy", "unique", "unique_copy", "unique_by_key",
               "ExclusiveSum", "InclusiveSum", "ExclusiveScan", "InclusiveScan",
               "ExclusiveSumByKey", "InclusiveSumByKey", "Flagged", "If", "Unique"}
_COMPACT_CALLS = {"copy_if", "remove_if", "remove_copy_if", "partition", "stable_partition",
                  "partition_copy", "Flagged", "If", "unique", "unique_copy"}


def library_call(call, names: set[str]) -> bool:
    if call.category not in ("thrust", "cub") and not call.name.startswith(("thrust::", "cub::")):
        return False
    return call.name.rsplit("::", 1)[-1] in names


class ScanAndCompaction(Detector):
    """PAR-07: library scans and selections, or a hand-written doubling scan."""

    id = "PAR-07"

    def detect(self, model):
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if library_call(call, _SCAN_CALLS):
                    yield at(call.node, 0.85)
                elif re.search(r"\b(BlockScan|WarpScan)\b", model.text_of(call.node)):
                    yield at(call.node, 0.8)
        for fn in device_functions(model):
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            shared = shared_names(model, fn)
            for loop in model.loops_in(fn):
                if loop.var is None or not _is_halving_or_doubling(loop):
                    continue
                body = loop.node.child_by_field_name("body")
                if loop.step_op in ("<<", "*") or any(s in squash(loop.step or "") for s in ("<<=1", "*=2")):
                    if loop.has_sync and self._reads_back(model, body, loop.var, shared, tiv):
                        yield at(loop.node, 0.8)
                        continue
                if any(c.category == "shuffle" and "up" in c.name for c in model.calls_in(fn)
                       if inside(c.node, loop.node)):
                    yield at(loop.node, 0.7)
            yield from self._up_down_sweep(model, fn, shared)

    @staticmethod
    def _up_down_sweep(model, fn, shared):
        """Blelloch scan: an up-sweep and a down-sweep loop (one halving, one doubling, both
        with barriers) that each add one shared element into another (``t[bi] += t[ai]``)."""
        sweeps = []
        for loop in model.loops_in(fn):
            if not (loop.has_sync and _is_halving_or_doubling(loop)) or _tree_combine(model, loop, shared):
                continue
            for n in walk(loop.node.child_by_field_name("body")):
                if n.type == "assignment_expression" and model.text_of(n.child_by_field_name("operator")) == "+=":
                    arr = base_name(model, n.child_by_field_name("left"))
                    if arr in shared:
                        sweeps.append((loop, arr))
                        break
        ops = {(lp.step_op in (">>", "/")) for lp, _ in sweeps}
        arrays = [a for _, a in sweeps]
        if len(sweeps) >= 2 and ops == {True, False} and len(set(arrays)) < len(arrays):
            yield at(sweeps[0][0].node, 0.75)

    @staticmethod
    def _reads_back(model, body, var, shared, tiv) -> bool:
        """A shared array read at ``<thread index> - var``."""
        for x in walk(body):
            if x.type == "subscript_expression" and base_name(model, x) in shared:
                idx = subscript_index(x)
                for b in walk(idx):
                    if b.type == "binary_expression" and model.text_of(b.child_by_field_name("operator")) == "-":
                        left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
                        if identifiers(model, right) == {var} and identifiers(model, left) & tiv:
                            return True
        return False


# ---------------------------------------------------------------------------------------------
# PAR-08

def _wave_subtraction(model, fn, minuend: set[str], tiv: set[str], scope: Node | None) -> bool:
    """``a - b`` in ``scope`` with ``a`` from ``minuend`` (and no thread index) and ``b``
    thread-derived: the anti-diagonal coordinate ``j = d - i``."""
    index_vars = set()
    for x in walk(scope):
        if x.type == "subscript_expression":
            index_vars |= identifiers(model, subscript_index(x))
    for b in walk(scope):
        if b.type == "binary_expression" and model.text_of(b.child_by_field_name("operator")) == "-":
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            lids, rids = identifiers(model, left), identifiers(model, right)
            if lids & minuend and not lids & tiv and rids & tiv and _feeds_index(model, b, index_vars):
                return True
    return False


def _feeds_index(model, node: Node, index_vars: set[str]) -> bool:
    """``node`` sits in a subscript or initialises a variable that is used as an index."""
    p = node.parent
    while p is not None and p.type not in ("expression_statement", "declaration", "compound_statement"):
        if p.type == "subscript_argument_list":
            return True
        if p.type == "init_declarator":
            d = p.child_by_field_name("declarator")
            return d is not None and model.text_of(d) in index_vars
        if p.type == "assignment_expression":
            return model.text_of(p.child_by_field_name("left")) in index_vars
        p = p.parent
    return False


def launch_args(model, launch) -> list[Node]:
    """Argument nodes of a ``<<<>>>`` launch."""
    args = launch.node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


class WavefrontParallelism(Detector):
    """PAR-08: anti-diagonal (wavefront) scheduling, from the host or inside a block."""

    id = "PAR-08"

    def detect(self, model):
        for launch in model.launches_of():
            loop = launch.in_loop
            kernel = model.function_of(launch.kernel)
            if loop is None or loop.var is None or kernel is None or launch.kind != "chevron":
                continue
            caller = model.function_of(launch.caller) if launch.caller else None
            wave = {loop.var}
            if caller is not None:
                wave = derived(model, caller, {loop.var}, [t for t in assignments(model, caller)
                                                           if inside(t[2], loop.node)])
            params = set()
            for i, arg in enumerate(launch_args(model, launch)):
                if identifiers(model, arg) & wave and i < len(kernel.params):
                    params.add(kernel.params[i].name)
            if not params:
                continue
            tiv = model.thread_index_vars(kernel) | {"threadIdx", "blockIdx"}
            tiv -= params
            if _wave_subtraction(model, kernel, params, tiv, kernel.body):
                yield Finding(launch.line, launch.line, confidence=0.85)
        for fn in device_functions(model):
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            for loop in model.loops_in(fn):
                if loop.var is None or not loop.has_sync or loop.var in tiv:
                    continue
                if _wave_subtraction(model, fn, {loop.var}, tiv - {loop.var},
                                     loop.node.child_by_field_name("body")):
                    yield at(loop.node, 0.8)


# ---------------------------------------------------------------------------------------------
# PAR-09

class PersistentGridSync(Detector):
    """PAR-09: grid-wide barriers (cooperative groups or a software barrier) in device code."""

    id = "PAR-09"

    def detect(self, model):
        for fn in device_functions(model):
            for call in self._grid_syncs(model, fn):
                yield at(call.node, 0.95)
            if fn.is_kernel and not any(True for _ in self._grid_syncs(model, fn)):
                for la in model.launches_of(fn.name):
                    if la.kind == "cooperative":
                        yield Finding(la.line, la.line, confidence=0.6)
            for loop, _counter in spin_loops(model, fn):
                if not model.is_reachable(loop):
                    continue
                if self._grid_target(model, fn, loop):
                    yield at(loop, 0.8)

    @staticmethod
    def _grid_syncs(model, fn):
        """Calls in ``fn`` that synchronise the whole grid (cooperative groups)."""
        grids = {name for name, value, _ in assignments(model, fn)
                 if "this_grid" in model.text_of(value)}
        grids |= {p.name for p in fn.params if "grid_group" in p.type_text}
        for n in walk(fn.body):
            if n.type == "declaration" and "grid_group" in model.text_of(n.child_by_field_name("type")):
                grids |= identifiers(model, n) - {"cg", "cooperative_groups"}
        for call in model.calls_in(fn):
            if call.category == "grid_sync":
                yield call
            elif call.name in ("cg::sync", "cooperative_groups::sync", "sync") and \
                    any(identifiers(model, a) & grids for a in call_args(call.node)):
                yield call
            elif call.name == "sync" and call.receiver and \
                    (call.receiver in grids or "this_grid" in call.receiver):
                yield call

    @staticmethod
    def _grid_target(model, fn, loop: Node) -> bool:
        cond = loop.child_by_field_name("condition")
        names = identifiers(model, cond)
        if "gridDim" in model.text_of(cond):
            return True
        gridvars = derived(model, fn, {n for n, v, _ in assignments(model, fn)
                                       if "gridDim" in model.text_of(v)})
        if names & gridvars:
            return True
        # a parameter whose argument at some call site involves gridDim
        params = [p.name for p in fn.params]
        for caller in model.reachable_functions():
            for c in model.calls_in(caller):
                if c.name != fn.name:
                    continue
                for i, a in enumerate(c.args):
                    if i < len(params) and params[i] in names and "gridDim" in a:
                        return True
        return False


# ---------------------------------------------------------------------------------------------
# PAR-10

def dim3_args(model, fn, expr: str) -> list[str] | None:
    """Components of a dim3 launch dimension: ``dim3(a, b)`` inline, or a ``dim3 name(a, b)`` /
    ``dim3 name = dim3(a, b)`` / ``dim3 name{a, b}`` declaration in ``fn``; None when the
    expression is not a dim3."""
    found = dim3_decl(model, fn, expr)
    return found[0] if found else None


def dim3_decl(model, fn, expr: str) -> tuple[list[str], int | None] | None:
    """Like :func:`dim3_args`, with the line of the declaration (None for an inline dim3)."""
    e = expr.strip()
    m = re.fullmatch(r"dim3\s*[\({](.*)[\)}]", e, re.S)
    if m:
        return _split_args(m.group(1)), None
    if not re.fullmatch(r"[A-Za-z_]\w*", e) or fn is None or fn.body is None:
        return None
    for n in walk(fn.body):
        if n.type != "declaration" or "dim3" not in model.text_of(n.child_by_field_name("type")):
            continue
        for d in n.named_children:
            t = model.text_of(d)
            m = re.fullmatch(re.escape(e) + r"\s*(?:=\s*dim3\s*)?[\({](.*)[\)}]", t, re.S)
            if m:
                return _split_args(m.group(1)), line(d)
            if t == e:
                return ["1"], line(d)
    return None


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _uses_yz(model, fn) -> bool:
    for n in walk(fn.body):
        if n.type == "field_expression":
            arg = model.text_of(n.child_by_field_name("argument"))
            if arg in ("threadIdx", "blockIdx") and model.text_of(n.child_by_field_name("field")) in ("y", "z"):
                return True
    return False


def block_per_item(model, fn) -> bool:
    """The kernel takes its item from blockIdx.x alone and its threads cooperate on a
    fixed-length item (block-stride loop or shared-memory work)."""
    text = squash(model.text_of(fn.body))
    loop_vars = {lp.var for lp in model.loops_in(fn) if lp.var}
    block_vars = derived(model, fn, {"blockIdx"}, index_only=True) - loop_vars
    thread_vars = derived(model, fn, {"threadIdx"}, index_only=True) - loop_vars
    for _, value, _ in assignments(model, fn):
        ids = index_identifiers(model, value)
        if ids & block_vars and ids & thread_vars:
            return False  # a global thread index: one thread per element, not per item
    for a in model.accesses_in(fn):
        ids = index_identifiers(model, a.index_node)
        if ids & block_vars and ids & thread_vars:
            return False
    item_vars = {name for name, value, _ in assignments(model, fn)
                 if re.fullmatch(r"(\([\w\s]+\))?blockIdx\.x", squash(model.text_of(value)))}
    uses_item = bool(item_vars) or re.search(r"blockIdx\.x\*", text) is not None
    shared = shared_names(model, fn)
    for call in model.calls_in(fn):  # items handed to whole blocks at run time
        if call.category == "atomic" and receiver_of(model, call.node) in shared and \
                atomic_role(model, fn, call) == "work":
            uses_item = True
    if not uses_item:
        return False
    for loop in model.loops_in(fn):
        init = loop.node.child_by_field_name("initializer")
        step = loop.step or ""
        if init is not None and "threadIdx" in model.text_of(init) and "blockDim" in step \
                and "gridDim" not in step:
            bounds = [loop.node.child_by_field_name("condition"), init]
            if any(x.type == "subscript_expression" for b in bounds for x in walk(b)):
                return False  # item length read from an offsets array: LBL-02
            return True
    return bool(shared_names(model, fn)) and any(
        c.category == "sync_threads" for c in model.calls_in(fn))


class MultidimensionalMapping(Detector):
    """PAR-10: 2-D/3-D launches, or one block per batch item."""

    id = "PAR-10"

    def detect(self, model):
        for launch in model.launches_of():
            kernel = model.function_of(launch.kernel)
            caller = model.function_of(launch.caller) if launch.caller else None
            dims, decl_lines = [], []
            for value, expr in ((launch.grid_value, launch.grid), (launch.block_value, launch.block)):
                found = dim3_decl(model, caller, expr or "")
                if found is not None and found[1] is not None:
                    decl_lines.append(found[1])
                if value is not None:
                    dims.append([str(v) for v in value])
                else:
                    dims.append(found[0] if found else None)
            multi = None
            for d in dims:
                if d is None:
                    continue
                extra = [x for x in d[1:] if model.eval_int(x, caller) != 1]
                multi = bool(multi) or bool(extra)
            if kernel is None:
                continue
            if multi or (multi is None and _uses_yz(model, kernel)):
                # the span runs from the dim3 declarations to the launch when they are close
                near = [ln for ln in decl_lines if 0 <= launch.line - ln <= 15]
                start = min(near) if near else launch.line
                yield Finding(start, launch.line, confidence=0.9 if multi else 0.75)
            elif block_per_item(model, kernel):
                yield Finding(launch.line, launch.line, confidence=0.8)


# ---------------------------------------------------------------------------------------------
# PAR-11

_PROP_FIELDS = {"maxThreadsPerBlock", "multiProcessorCount", "maxThreadsPerMultiProcessor",
                "maxBlocksPerMultiProcessor", "warpSize", "maxGridSize", "maxThreadsDim",
                "regsPerBlock", "regsPerMultiprocessor", "sharedMemPerBlock",
                "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin"}


class OccupancyTuning(Detector):
    """PAR-11: __launch_bounds__, the occupancy API, or launch sizes derived from the device."""

    id = "PAR-11"

    def detect(self, model):
        for k in model.reachable_kernels():
            if k.launch_bounds is not None:
                node = next((n for n in walk(k.node) if model.text_of(n).startswith("__launch_bounds__")), k.node)
                yield at(node, 0.95)
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if call.name.startswith("cudaOccupancy"):
                    yield at(call.node, 0.9)
        for fn in host_functions(model):
            yield from self._device_sized(model, fn)

    @staticmethod
    def _device_sized(model, fn):
        seeds: dict[str, Node] = {}
        props = set()
        for n in walk(fn.body):
            if n.type == "declaration" and "cudaDeviceProp" in model.text_of(n.child_by_field_name("type")):
                props |= identifiers(model, n)
        for p in fn.params:
            if "cudaDeviceProp" in p.type_text:
                props.add(p.name)
        assigns = assignments(model, fn)
        for name, value, _ in assigns:
            for x in walk(value):
                if x.type == "field_expression" and model.text_of(x.child_by_field_name("field")) in _PROP_FIELDS \
                        and (base_name(model, x) in props or not props):
                    seeds.setdefault(name, x)
        for call in model.calls_in(fn):
            if call.name == "cudaDeviceGetAttribute" and call.args:
                name = call.args[0].lstrip("&").strip()
                if re.fullmatch(r"[A-Za-z_]\w*", name):
                    seeds.setdefault(name, call.node)
        if not seeds:
            return
        reported = set()
        for launch in model.launches_of():
            if launch.caller != fn.name:
                continue
            for expr, conf in ((launch.block, 0.85), (launch.grid, 0.65)):
                names = set(re.findall(r"[A-Za-z_]\w*", expr or ""))
                dim = dim3_args(model, fn, expr or "")
                if dim is not None:
                    for comp in dim:
                        names |= set(re.findall(r"[A-Za-z_]\w*", comp))
                for seed, node in seeds.items():
                    if names & derived(model, fn, {seed}, assigns) and id(node) not in reported:
                        reported.add(id(node))
                        yield at(node, conf)
                if any(f".{f}" in (expr or "") for f in _PROP_FIELDS):
                    yield Finding(launch.line, launch.line, confidence=conf)


DETECTORS = [GridStrideLoop, ThreadCoarsening, WarpShuffleCollectives, BlockTreeReduction,
             PrivatizedAccumulation, AtomicUpdate, ScanAndCompaction, WavefrontParallelism,
             PersistentGridSync, MultidimensionalMapping, OccupancyTuning]
