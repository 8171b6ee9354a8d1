"""PAR-08 wavefront parallelism: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, call_args, inside, subscript_index, walk


def _wave_subtraction(model, fn, minuend: set[str], tiv: set[str], scope: Node | None) -> bool:
    """``a - b`` in ``scope`` with ``a`` from ``minuend`` (and no thread index) and ``b``
    thread-derived: the anti-diagonal coordinate ``j = d - i``."""
    index_vars = set()
    for x in walk(scope):
        if x.type == "subscript_expression":
            index_vars |= model.identifiers(subscript_index(x))
    for b in walk(scope):
        if b.type == "binary_expression" and model.text_of(b.child_by_field_name("operator")) == "-":
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            lids, rids = model.identifiers(left), model.identifiers(right)
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


_SELECT = {"max", "min", "fmax", "fmin", "fmaxf", "fminf", "std::max", "std::min", "::max", "::min",
           "cuda::std::max", "cuda::std::min", "__vimax3_s32", "__vimax_s32", "__vimin_s32"}


def _selects(model, fn) -> bool:
    """The kernel keeps the best of several candidates: a max/min call, a ternary on a
    comparison, or ``if (c < best) best = c``."""
    for c in model.calls_in(fn):
        if c.name in _SELECT or c.unqualified in ("max", "min", "fmaxf", "fminf", "fmax", "fmin"):
            return True
    for n in walk(fn.body):
        if n.type == "conditional_expression":
            cond = n.child_by_field_name("condition")
            if cond is not None and cond.type == "binary_expression" and model.text_of(
                    cond.child_by_field_name("operator")) in ("<", ">", "<=", ">="):
                return True
        elif n.type == "if_statement":
            cond = n.child_by_field_name("condition")
            cons = n.child_by_field_name("consequence")
            if cond is None or cons is None:
                continue
            compared = model.identifiers(cond)
            if not any(b.type == "binary_expression" and model.text_of(
                    b.child_by_field_name("operator")) in ("<", ">", "<=", ">=") for b in walk(cond)):
                continue
            for a in walk(cons):
                if a.type == "assignment_expression" and model.text_of(
                        a.child_by_field_name("left")) in compared:
                    return True
    return False


def _level_kernel(model, kernel) -> bool:
    """A DP level: the kernel reads one buffer at cells other than its own (``prev[c - w]``, a
    loop over ``expected[y]``), writes another, and keeps the best candidate."""
    pointers = {p.name for p in kernel.params if p.is_pointer}
    reads, writes, shifted = set(), set(), False
    for a in model.accesses_in(kernel):
        if a.array not in pointers:
            continue
        if a.is_write:
            writes.add(a.array)
        elif a.is_read:
            reads.add(a.array)
            idx = a.index_node
            if idx is not None and (any(n.type == "binary_expression" and model.text_of(
                    n.child_by_field_name("operator")) == "-" for n in walk(idx))
                    or any(lp.var in model.identifiers(idx) for lp in model.loops_in(kernel)
                           if lp.var and inside(a.node, lp.node))):
                shifted = True
    return bool(reads - writes) and bool(writes) and shifted and _selects(model, kernel)


def _param_uses(model, kernel) -> tuple[set[str], set[str]]:
    reads, writes = set(), set()
    for a in model.accesses_in(kernel):
        (writes if a.is_write else reads).add(a.array)
    return reads - writes, writes


def _carries(model, caller, loop) -> bool:
    """Each pass reads what an earlier pass wrote: a buffer a launch in the loop writes is read
    by a launch in it (``d_val + t * states`` written, ``d_val + (t + 1) * states`` read), or the
    loop swaps the buffers it passes (``std::swap(prev, next)``). A loop over chunks of
    independent inputs does not."""
    if caller is None:
        return False
    launches = [la for la in model.launches_of() if inside(la.node, loop.node)]
    written, read, passed = set(), set(), set()
    for la in launches:
        k = model.function_of(la.kernel)
        if k is None:
            continue
        reads, writes = _param_uses(model, k)
        for i, arg in enumerate(call_args(la.node)):
            if i >= len(k.params):
                break
            ids = model.identifiers(arg)
            for name in list(ids):
                for v in model.initialisers(caller, name):
                    ids |= model.identifiers(v)
            passed |= ids
            if k.params[i].name in writes:
                root = model.root_identifier(arg)
                if root is not None:
                    written.add(root)
            elif k.params[i].name in reads:
                read |= ids
    if written & read:
        return True
    body = loop.node.child_by_field_name("body") or loop.node
    for n in walk(body):
        if n.type == "call_expression" and model.text_of(
                n.child_by_field_name("function")).endswith("swap"):
            if any(model.identifiers(a) & passed for a in call_args(n)):
                return True
        elif n.type == "assignment_expression" and n.child_by_field_name("right") is not None \
                and n.child_by_field_name("right").type == "identifier":
            if model.text_of(n.child_by_field_name("left")) in passed and \
                    model.text_of(n.child_by_field_name("right")) in passed:
                return True
    return False


def _has_cooperative_path(model, caller) -> bool:
    """The function also launches cooperatively: the per-level loop is its fallback."""
    return caller is not None and any(
        c.category == "coop_launch" for c in model.calls_in(caller)) or any(
        la.kind == "cooperative" and la.caller == getattr(caller, "name", None)
        for la in model.launches_of())


class WavefrontParallelism(Detector):
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
                wave = model.derived(caller, {loop.var}, [t for t in model.assignments(caller)
                                                           if inside(t[2], loop.node)])
            params = set()
            for i, arg in enumerate(call_args(launch.node)):
                if model.identifiers(arg) & wave and i < len(kernel.params):
                    params.add(kernel.params[i].name)
            if not params:
                continue
            tiv = model.thread_index_vars(kernel) | {"threadIdx", "blockIdx"}
            tiv -= params
            if _wave_subtraction(model, kernel, params, tiv, kernel.body):
                yield Finding(launch.line, launch.line, confidence=0.85)
            elif not model.is_timing_loop(loop) and _level_kernel(model, kernel) and \
                    _carries(model, caller, loop) and not _has_cooperative_path(model, caller):
                yield Finding(launch.line, launch.line, confidence=0.7,
                              note="one launch per DP level: the cells of a level in parallel")
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            shuffles = [c for c in model.calls_in(fn) if c.category == "shuffle"]
            for loop in model.loops_in(fn):
                if loop.var is None or loop.var in tiv:
                    continue
                if not loop.has_sync and not any(inside(c.node, loop.node) for c in shuffles):
                    continue  # waves need a barrier, or lanes passing cells by shuffle
                if _wave_subtraction(model, fn, {loop.var}, tiv - {loop.var},
                                     loop.node.child_by_field_name("body")):
                    yield Finding.at(loop.node, 0.8)
