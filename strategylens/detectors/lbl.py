"""Detectors for the LBL family (load balancing), LBL-01 .. LBL-06.

They read the program model (:mod:`strategylens.model`) and reuse the node helpers of
:mod:`strategylens.detectors.par` (assignments, simple data flow, atomic roles).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from strategylens.detectors import Detector
from strategylens.detectors.hst import sort_orders_device_work
from strategylens.detectors.par import (
    COMPARISONS,
    assignments,
    at,
    atomic_role,
    base_name,
    call_args,
    derived,
    device_functions,
    host_functions,
    identifiers,
    inside,
    library_call,
    receiver_of,
    subscript_index,
    target_is_scalar,
    walk,
)

# ---------------------------------------------------------------------------------------------
# LBL-01


class DynamicWorkQueue(Detector):
    """LBL-01: an atomic counter (or queue head) whose value hands out the next work item."""

    id = "LBL-01"

    def detect(self, model):
        for fn in device_functions(model):
            for call in model.calls_in(fn):
                if call.category != "atomic":
                    continue
                args = call_args(call.node)
                if not args or not target_is_scalar(model, fn, args[0]):
                    continue
                if atomic_role(model, fn, call) == "work":
                    yield at(call.node, 0.9)


# ---------------------------------------------------------------------------------------------
# LBL-02

def _loaded(model, fn, node: Node | None) -> bool:
    """Whether ``node`` reads memory, directly or through variables assigned from loads."""
    loaded_vars = {name for name, value, _ in assignments(model, fn)
                   if any(x.type == "subscript_expression" for x in walk(value))}
    return any(x.type == "subscript_expression" for x in walk(node)) or \
        bool(identifiers(model, node) & loaded_vars)


class CooperativeItemMapping(Detector):
    """LBL-02: a warp or block per item, the item's elements split among its lanes."""

    id = "LBL-02"

    def detect(self, model):
        for fn in device_functions(model):
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            block_items = {name for name, value, _ in assignments(model, fn)
                           if re.fullmatch(r"(\([\w\s]+\))?blockIdx\.x", re.sub(r"\s", "", model.text_of(value)))}
            for loop in model.loops_in(fn):
                init = loop.node.child_by_field_name("initializer")
                step = loop.step or ""
                if init is None or "gridDim" in step:
                    continue
                init_ids = identifiers(model, init) - ({loop.var} if loop.var else set())
                if not init_ids & tiv and "thread_rank" not in model.text_of(init) and \
                        not self._lane_offset_in_body(model, fn, loop, tiv):
                    continue
                irregular = _loaded(model, fn, init) or _loaded(model, fn, loop.node.child_by_field_name("condition"))
                step_value = loop.step_value if loop.step_value is not None else model.eval_int(
                    re.sub(r"^.*(\+=|=)", "", step).strip(), fn)
                if step_value == 32 or re.search(r"\bwarpSize\b|WARP", step):
                    yield at(loop.node, 0.9 if irregular else 0.6, 32.0)
                elif "blockDim" in step and irregular:
                    cond_ids = identifiers(model, loop.node.child_by_field_name("condition")) | init_ids
                    if cond_ids & block_items or "blockIdx" in model.text_of(init):
                        yield at(loop.node, 0.85, self._block_size(model, fn))

    @staticmethod
    def _lane_offset_in_body(model, fn, loop, tiv) -> bool:
        """``for (base = beg; base < end; base += 32) { k = base + lane; ... }``: the lanes
        split each chunk of the item inside the body instead of in the loop header."""
        if loop.var is None:
            return False
        for _name, value, node in assignments(model, fn):
            if inside(node, loop.node) and loop.var in identifiers(model, value) and \
                    identifiers(model, value) & (tiv - {loop.var}) and \
                    model.text_of(value).count("+") >= 1:
                return True
        return False

    @staticmethod
    def _block_size(model, fn) -> float | None:
        sizes = {la.block_value[0] for la in model.launches_of(fn.name) if la.block_value}
        return float(sizes.pop()) if len(sizes) == 1 else None


# ---------------------------------------------------------------------------------------------
# LBL-03

def _slot_writes(model, fn, call) -> bool:
    """The atomic's returned value (or a value derived from it) indexes a write."""
    p = call.node.parent
    while p is not None and p.type in ("subscript_argument_list", "binary_expression",
                                       "parenthesized_expression"):
        p = p.parent
    if p is not None and p.type == "subscript_expression" and p.parent is not None and \
            p.parent.type == "assignment_expression" and p.parent.child_by_field_name("left") == p:
        return True  # next[atomicAdd(&size, 1)] = v
    if p is not None and p.type == "assignment_expression" and \
            p.child_by_field_name("right") == call.node and \
            p.child_by_field_name("left").type == "subscript_expression":
        return True  # rank[i] = atomicAdd(&count[cell], 1): the slot, scattered by a later pass
    var = receiver_of(model, call.node)
    if var is None:
        return False
    tainted = derived(model, fn, {var})
    return any(a.is_write and a.index_node is not None and identifiers(model, a.index_node) & tainted
               for a in model.accesses_in(fn))


def _reads_worklist(model) -> bool:
    """Some reachable kernel loads ``v = list[thread index]`` and uses ``v`` as an index."""
    for fn in device_functions(model):
        tiv = model.thread_index_vars(fn)
        for name, value, _ in assignments(model, fn):
            if value.type != "subscript_expression":
                continue
            idx = subscript_index(value)
            if idx is None or not (identifiers(model, idx) & tiv or "threadIdx" in model.text_of(idx)):
                continue
            if any(a.index_node is not None and name in identifiers(model, a.index_node)
                   for a in model.accesses_in(fn)):
                return True
    return False


def _iterated(model, fn) -> bool:
    """``fn`` is launched inside a host loop, or loops over rounds itself."""
    if any(la.in_loop is not None for la in model.launches_of(fn.name)):
        return True
    return any(la.in_loop is not None for la in model.launches_of())


class FrontierWorklist(Detector):
    """LBL-03: compacted lists of active elements rebuilt each round."""

    id = "LBL-03"

    def detect(self, model):
        worklist = _reads_worklist(model)
        for fn in device_functions(model):
            for call in model.calls_in(fn):
                if call.category != "atomic" or not worklist:
                    continue
                args = call_args(call.node)
                if not args or not target_is_scalar(model, fn, args[0]):
                    continue
                if atomic_role(model, fn, call) in ("slot", "combine") and _slot_writes(model, fn, call) \
                        and _iterated(model, fn):
                    yield at(call.node, 0.8)
        compaction = {"copy_if", "remove_if", "remove_copy_if", "partition", "stable_partition",
                      "partition_copy", "Flagged", "If"}
        for fn in host_functions(model):
            loops = model.loops_in(fn)
            launches = [la for la in model.launches_of() if la.caller == fn.name]
            for call in model.calls_in(fn):
                if not library_call(call, compaction):
                    continue
                for loop in loops:
                    if inside(call.node, loop.node) and any(inside(la.node, loop.node) for la in launches):
                        yield at(call.node, 0.8)
                        break


# ---------------------------------------------------------------------------------------------
# LBL-04

_SORT_BY_KEY = {"sort_by_key", "stable_sort_by_key", "SortPairs", "SortPairsDescending"}


def _launch_arg_ids(model, launch) -> list[set[str]]:
    args = launch.node.child_by_field_name("arguments")
    return [identifiers(model, a) for a in (args.named_children if args is not None else [])]


def _device_produced(model, fn) -> set[str]:
    """Pointer parameters of kernel ``fn`` whose buffer another reachable kernel writes (keys
    computed on the device, such as cell ids)."""
    out = set()
    mine = model.launches_of(fn.name)
    for i, p in enumerate(fn.params):
        if not p.is_pointer:
            continue
        host_ids = set().union(*[ids[i] for la in mine for ids in [_launch_arg_ids(model, la)]
                                 if i < len(ids)]) if mine else set()
        if not host_ids:
            continue
        for la in model.launches_of():
            other = model.function_of(la.kernel)
            if other is None or other.name == fn.name:
                continue
            for j, ids in enumerate(_launch_arg_ids(model, la)):
                if j < len(other.params) and ids & host_ids and any(
                        a.is_write and a.array == other.params[j].name for a in model.accesses_in(other)):
                    out.add(p.name)
    return out


class CostBinning(Detector):
    """LBL-04: items grouped by a computed cell, bin or cost key."""

    id = "LBL-04"

    def detect(self, model):
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if library_call(call, _SORT_BY_KEY) and self._computed_keys(model, fn, call):
                    yield at(call.node, 0.8)
                elif sort_orders_device_work(model, call):  # e.g. longest jobs first
                    yield at(call.node, 0.7)
        for fn in device_functions(model):
            computed = {name for name, value, _ in assignments(model, fn)
                        if value.type != "subscript_expression" and value.type != "identifier"
                        and value.type != "number_literal"}
            tiv = model.thread_index_vars(fn)
            for call in model.calls_in(fn):
                if call.category != "atomic":
                    continue
                args = call_args(call.node)
                if not args or target_is_scalar(model, fn, args[0]):
                    continue
                idx_ids = set()
                for x in walk(args[0]):
                    if x.type == "subscript_expression":
                        idx_ids |= identifiers(model, subscript_index(x))
                keys = (idx_ids & computed - tiv) | (idx_ids & _device_produced(model, fn))
                if keys and _slot_writes(model, fn, call):
                    yield at(call.node, 0.8)

    @staticmethod
    def _computed_keys(model, fn, call) -> bool:
        """The keys of a sort-by-key are written by a reachable kernel launched before it."""
        args = call.args
        if args and re.match(r"(thrust::)?(device|host|cuda::par|seq)\b", args[0].strip()):
            args = args[1:]
        if call.name.rsplit("::", 1)[-1].startswith("SortPairs"):
            args = args[2:]
        if not args:
            return False
        keys = set(re.findall(r"[A-Za-z_]\w*", args[0])) - {"thrust", "raw_pointer_cast", "data",
                                                            "begin", "end", "get"}
        for launch in model.launches_of():
            kernel = model.function_of(launch.kernel)
            if kernel is None or launch.line > call.line:
                continue
            node_args = launch.node.child_by_field_name("arguments")
            for i, arg in enumerate(node_args.named_children if node_args is not None else []):
                if i >= len(kernel.params) or not identifiers(model, arg) & keys:
                    continue
                p = kernel.params[i].name
                if any(a.is_write and a.array == p for a in model.accesses_in(kernel)):
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# LBL-05

def _midpoint(model, value: Node | None) -> set[str] | None:
    """``{lo, hi}`` when ``value`` is an integer midpoint ``(lo + hi) / 2``, ``(lo + hi) >> 1``
    or ``lo + (hi - lo) / 2``."""
    if value is None:
        return None
    t = re.sub(r"\s", "", model.text_of(value))
    if re.search(r"\d\.\d|\.\d|f\b", t):
        return None
    m = re.fullmatch(r"\(?(\w+)\+(\w+)(?:\+1)?\)?(?:/2|>>1)", t) or \
        re.fullmatch(r"(\w+)\+\((\w+)-\w+(?:\+1)?\)(?:/2|>>1)", t)
    return {m.group(1), m.group(2)} if m else None


def _position(model, node: Node, tiv: set[str]) -> bool:
    """A thread's work position: computed from thread indices without loads."""
    ids = identifiers(model, node)
    return bool(ids & (tiv | {"threadIdx", "blockIdx"})) and not any(
        x.type == "subscript_expression" for x in walk(node))


class BalancedPartitioning(Detector):
    """LBL-05: a binary search that places a thread's equal share of the work (merge path,
    nnz-balanced rows)."""

    id = "LBL-05"

    def detect(self, model):
        helpers: dict[str, list[tuple[int, Node]]] = {}  # search helpers: key parameter -> loop
        for fn in device_functions(model):
            tiv = model.thread_index_vars(fn)
            params = [p.name for p in fn.params]
            for loop, mids in self._searches(model, fn):
                body = loop.node.child_by_field_name("body")
                if self._positional_compare(model, body, mids, tiv):
                    yield at(loop.node, 0.85)
                elif fn.is_device and not fn.is_kernel:
                    for i, p in enumerate(params):
                        if not fn.params[i].is_pointer and self._positional_compare(model, body, mids, {p}):
                            helpers.setdefault(fn.name, []).append((i, loop.node))
        # a search helper called with a thread's share position (merge-path style helpers)
        done: set[int] = set()
        for fn in device_functions(model):
            tiv = model.thread_index_vars(fn)
            for call in model.calls_in(fn):
                for i, loop in helpers.get(call.name, []):
                    args = call_args(call.node)
                    if i < len(args) and _position(model, args[i], tiv) and loop.id not in done:
                        done.add(loop.id)
                        yield at(loop, 0.8)

    @staticmethod
    def _searches(model, fn):
        """``(loop, {mid: {lo, hi}})`` for loops that compute an integer midpoint."""
        assigns = assignments(model, fn)
        for loop in model.loops_in(fn):
            mids = {}
            for name, value, stmt in assigns:
                if inside(stmt, loop.node):
                    bounds = _midpoint(model, value)
                    if bounds:
                        mids[name] = bounds
            if mids:
                yield loop, mids

    @staticmethod
    def _positional_compare(model, body, mids, tiv) -> bool:
        for b in walk(body):
            if b.type != "binary_expression" or model.text_of(b.child_by_field_name("operator")) not in COMPARISONS:
                continue
            for mid, bounds in mids.items():
                probes = [x for x in walk(b) if x.type == "subscript_expression"
                          and mid in identifiers(model, subscript_index(x))]
                if not probes:
                    continue
                positional = tiv - bounds - {mid}
                outside = set()
                stack = [b]
                while stack:  # identifiers not inside subscripts, plus those in the probes
                    x = stack.pop()
                    if x.type == "subscript_expression" and x not in probes:
                        continue
                    if x.type == "identifier":
                        outside.add(model.text_of(x))
                    stack.extend(x.children)
                if outside & positional:
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# LBL-06

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
    """LBL-06: a size threshold sending small inputs to a host path, or the host finishing a
    small remainder of the device's work."""

    id = "LBL-06"

    def detect(self, model):
        launching = self._launching_functions(model)
        hosts = host_functions(model)
        compute_fns = {f.name for f in hosts if f.name not in launching and any(
            True for _ in model.loops_in(f))}
        for fn in hosts:
            yield from self._threshold(model, fn, launching, compute_fns)
            yield from self._host_combine(model, fn)
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
                    if base_name(model, left) in outputs and left.type == "subscript_expression" \
                            and right.type not in ("subscript_expression", "identifier", "cast_expression",
                                                   "number_literal"):
                        yield at(loop.node, 0.7)
                        break

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
                yield at(n, 0.85)

    @staticmethod
    def _host_combine(model, fn):
        copies = []
        for call in model.calls_in(fn):
            if call.category in ("copy", "copy_async") and any("DeviceToHost" in a for a in call.args) \
                    and call.args:
                dst = call_args(call.node)[0]
                if dst.type == "call_expression":  # vec.data()
                    dst = dst.child_by_field_name("function")
                name = base_name(model, dst)
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
                yield at(loop.node, 0.6)

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
        reads_buf = any(x.type == "subscript_expression" and base_name(model, x) in bufs
                        for x in walk(body))
        inner = [x for x in walk(body) if x.type in ("for_statement", "while_statement", "do_statement")]
        if reads_buf and inner:
            for x in walk(body):
                if x.type == "assignment_expression" and any(inside(x, i) for i in inner):
                    name = base_name(model, x.child_by_field_name("left"))
                    if name and name not in bufs:
                        found.add(name)
        for n in walk(body):
            if n.type != "assignment_expression":
                continue
            op = model.text_of(n.child_by_field_name("operator"))
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            reads = {base_name(model, x) for x in walk(right) if x.type == "subscript_expression"}
            if not reads & bufs or base_name(model, left) in bufs:
                continue
            rt = model.text_of(right)
            target = base_name(model, left)
            if left.type == "subscript_expression" and target in {
                    base_name(model, x) for x in walk(right) if x.type == "subscript_expression"}:
                found.add(target)  # a recurrence over the array being written (host scan)
            elif op in ("+=", "-=", "*=", "|=", "&=", "^=") or \
                    re.search(r"\b(f?max|f?min|std::max|std::min)f?\s*\(", rt) or \
                    (right.type == "conditional_expression" and base_name(model, left) in identifiers(model, right)):
                name = base_name(model, left)
                if name:
                    found.add(name)
        return found


DETECTORS = [DynamicWorkQueue, CooperativeItemMapping, FrontierWorklist, CostBinning,
             BalancedPartitioning, HybridCpuGpuSplit]
