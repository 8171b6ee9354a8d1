"""Detectors for the CMP family (computation restructuring), CMP-01 .. CMP-09.

Each class follows the definition in the taxonomy and its catalog entry (``catalog/CMP-*``).
The reference solution is not visible to the tagger, so strategies defined relative to it
(CMP-01 fusion, CMP-02 substitution, CMP-09 pruning) are inferred from recognisable shapes in
the solution and carry lower confidence.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.detectors.mem import (
    LOOP_TYPES, SCALAR_BYTES, _rhs_reads_global, assignment_of, base_name, computed,
    device_functions, enclosing_loops, fn_nodes, global_names, identifiers, is_sync, line, local_defs_op,
    nodes_of, shared_array_uses, single_thread_guarded, strip, subscript_indices, text, types,
)

if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

    from strategylens.model import Function, ProgramModel

MATH_CALLS = {
    "sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "sqrt", "cbrt",
    "atan", "atan2", "asin", "acos", "sinh", "cosh", "tanh", "erf", "erfc", "lgamma", "tgamma",
    "hypot", "rsqrt", "sincos", "sinpi", "cospi",
}
COMPARE_OPS = ("<", ">", "<=", ">=", "==", "!=")
FAST_INTRINSICS = {
    "__expf": 0.9, "__exp10f": 0.9, "__logf": 0.9, "__log2f": 0.9, "__log10f": 0.9,
    "__powf": 0.9, "__sinf": 0.9, "__cosf": 0.9, "__tanf": 0.9, "__sincosf": 0.9,
    "__fdividef": 0.9, "__saturatef": 0.85, "__frsqrt_rn": 0.85, "rsqrtf": 0.8, "rsqrt": 0.75,
    "fmaf": 0.75, "fma": 0.7, "__fmaf_rn": 0.8, "__fmaf_rz": 0.8, "__fmaf_ru": 0.8,
    "__fmaf_rd": 0.8, "__fma_rn": 0.8, "__fmaf_ieee_rn": 0.8, "rcbrtf": 0.7,
}
BIT_CALLS = {"__popc", "__popcll", "__ffs", "__ffsll", "__clz", "__clzll", "__brev", "__brevll",
             "__fns", "__ballot_sync", "__ballot", "__funnelshift_l", "__funnelshift_r",
             "__funnelshift_lc", "__funnelshift_rc", "__byte_perm"}
BIT_ATOMICS = {"atomicOr", "atomicAnd", "atomicXor", "atomicOr_block", "atomicAnd_block",
               "atomicXor_block", "atomicOr_system", "atomicAnd_system", "atomicXor_system"}
VOTES = ("__any_sync", "__all_sync", "__ballot_sync", "__any", "__all", "__ballot")
INTEGRAL = {"int", "unsigned", "unsigned int", "bool", "char", "unsigned char", "signed char",
            "short", "unsigned short", "uint8_t", "int8_t", "uint32_t", "int32_t", "uint16_t",
            "int16_t"}


def _short(name: str) -> str:
    return name.split("::")[-1].split(".")[-1]


def _is_math_call(model: ProgramModel, node: Node) -> bool:
    fn = node.child_by_field_name("function")
    name = _short(text(model, fn)).lstrip("_")
    return name in MATH_CALLS or (name.endswith("f") and name[:-1] in MATH_CALLS)


def _fn_name_line(fn: Function) -> int:
    """Line of the kernel's name in its declarator."""
    decl = fn.node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is not None:
        name = decl.child_by_field_name("declarator")
        if name is not None:
            return line(name)
    return fn.line_start


def _launch_args(model: ProgramModel, la) -> list[str]:
    args = la.node.child_by_field_name("arguments")
    return [text(model, a) for a in args.named_children] if args is not None else []


def _body_stmt(node: Node | None) -> Node | None:
    """The single jump statement of an if consequence (``return;``, ``{ ...; return; }``)."""
    if node is None:
        return None
    if node.type == "compound_statement":
        kids = [c for c in node.named_children if c.type != "comment"]
        return kids[-1] if kids and kids[-1].type in (
            "return_statement", "continue_statement", "break_statement") else None
    return node if node.type in ("return_statement", "continue_statement",
                                 "break_statement") else None


# ---------------------------------------------------------------------------------------------
# CMP-01

class KernelFusion(Detector):
    """CMP-01: a kernel that runs several dependent data passes with the intermediate kept on chip.

    Two shapes are counted, each a hand-off across threads that would otherwise need a second
    launch and a global intermediate:

    - a computed value (not a plain copy of global data) written to a ``__shared__`` array, a
      barrier, then read by other threads (a different index) to compute the next stage;
    - a value reduced across the block or warp (a shared reduction workspace read at a constant
      index, a shared scalar, a shuffle broadcast from lane 0, or an XOR butterfly) consumed by a
      later loop that reads global data again (a second pass over the data).

    A third shape is temporal blocking: several update steps inside one kernel, a shared array
    rewritten from its neighbours between barriers in a time loop.

    Per-thread chains in registers (the natural port of the reference's loop body), a norm or
    change accumulated where its operand is produced, reduction trees and scans on their own, and
    plain tile loads are not fusion. Intensity: stages fused (1 + hand-offs).
    """

    id = "CMP-01"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            gnames = global_names(model, fn)
            handoffs = self._shared_handoffs(model, fn, gnames)
            reduced = self._reduced_consumers(model, fn, gnames)
            steps = self._time_steps(model, fn)
            stages = max(1 + max(handoffs, reduced), steps)
            if stages >= 2:
                conf = 0.7 if handoffs and reduced else (0.6 if handoffs else 0.65)
                ln = _fn_name_line(fn)
                yield Finding(ln, ln, conf, float(stages),
                              f"{stages} stages in one kernel (intermediate on chip)")

    # -- shape 1 ---------------------------------------------------------------------------
    def _shared_handoffs(self, model, fn, gnames) -> int:
        syncs = [c.start_byte for c in fn_nodes(model, fn, "call_expression")
                 if is_sync(model, c)]
        count = 0
        for v in model.vars_in(fn, space="shared"):
            if not v.dims and not v.extern:
                continue
            writes, reads, self_update = shared_array_uses(model, fn, v.name)
            if self_update or not writes or not reads:
                continue
            made = []
            for w in writes:
                rhs = assignment_of(w).child_by_field_name("right")
                if computed(model, fn, rhs) and _rhs_reads_global(model, fn, rhs, gnames) \
                        and not single_thread_guarded(model, fn, w):
                    made.append(w)
            if not made:
                continue
            wtexts = {text(model, w) for w in writes}
            first = min(w.start_byte for w in made)
            # the next stage: each thread reads other threads' values around its own position
            # (a read by one thread, or a loop over the whole array, is a reduction instead)
            if any(r.start_byte > first and text(model, r) not in wtexts and
                   any(first < s < r.start_byte for s in syncs) and
                   model.uses_thread_index(r) and not single_thread_guarded(model, fn, r)
                   for r in reads):
                count += 1
        return count

    # -- shape 3 ---------------------------------------------------------------------------
    def _time_steps(self, model, fn) -> int:
        """Several update steps inside one kernel: a loop with a barrier whose body writes a
        shared array from neighbouring shared elements at constant offsets (temporal blocking).
        Reduction trees and scans read at an offset that changes with the loop and are left out.
        Returns the number of steps fused (the trip count when known, else 2), or 0."""
        shared = {v.name for v in model.vars_in(fn, space="shared")}
        for lp in model.loops_in(fn):
            if not lp.has_sync or lp.var is None:
                continue
            for n in nodes_of(lp.node.child_by_field_name("body"), "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression" or \
                        base_name(model, left) not in shared:
                    continue
                rhs = n.child_by_field_name("right")
                idx = set()
                for sub in nodes_of(rhs, "subscript_expression"):
                    if sub.parent is not None and sub.parent.type == "subscript_expression":
                        continue  # the a[i] inside a[i][j]
                    if base_name(model, sub) in shared and subscript_indices(sub):
                        last = subscript_indices(sub)[-1]
                        if lp.var in identifiers(model, last):
                            idx = set()
                            break
                        idx.add(text(model, last).replace(" ", ""))
                if len(idx) >= 3 and computed(model, fn, rhs):
                    return lp.trip_count if lp.trip_count and lp.trip_count > 1 else 2
        return 0

    # -- shape 2 ---------------------------------------------------------------------------
    def _reduced_consumers(self, model, fn, gnames) -> int:
        shared = {v.name: v for v in model.vars_in(fn, space="shared")}
        workspaces = {name for name, v in shared.items()
                      if (v.dims or v.extern) and shared_array_uses(model, fn, name)[2]}
        scalars = {name for name, v in shared.items() if not v.dims and not v.extern}

        def reduced_read(node) -> bool:
            for s in nodes_of(node, "subscript_expression"):
                if base_name(model, s) in workspaces and all(
                        model.eval_int(ix, fn) is not None for ix in subscript_indices(s)):
                    return True
            for c in nodes_of(node, "call_expression"):
                name = _short(text(model, c.child_by_field_name("function")))
                args = c.child_by_field_name("arguments")
                if name in ("__shfl_sync", "__shfl") and args is not None and \
                        args.named_child_count >= 3 and \
                        model.eval_int(args.named_children[2], fn) == 0:
                    return True
            return bool(identifiers(model, node) & scalars)

        # names holding a block-reduced value, and the earliest point each becomes available
        reduced: dict[str, int] = {}
        # butterfly reductions leave the total in every lane: v += __shfl_xor_sync(m, v, o)
        for n in fn_nodes(model, fn, "assignment_expression"):
            left = n.child_by_field_name("left")
            if left is None or left.type != "identifier":
                continue
            calls = [_short(text(model, c.child_by_field_name("function")))
                     for c in nodes_of(n.child_by_field_name("right"), "call_expression")]
            loops = enclosing_loops(n, fn)
            if loops and any(c in ("__shfl_xor_sync", "__shfl_xor") for c in calls):
                reduced.setdefault(text(model, left), loops[0].end_byte)
        for n in fn_nodes(model, fn, "init_declarator", "assignment_expression"):
            if n.type == "init_declarator":
                d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            else:
                d, v = n.child_by_field_name("left"), n.child_by_field_name("right")
            if d is None or d.type != "identifier" or v is None or \
                    text(model, d) in scalars:
                continue
            if reduced_read(v) or identifiers(model, v) & set(reduced):
                reduced.setdefault(text(model, d), n.end_byte)
        consumers = 0
        for name, after in reduced.items():
            if self._consumed(model, fn, gnames, {name}, after):
                consumers += 1
        for name in scalars:
            writes = [w for w in fn_nodes(model, fn, "assignment_expression")
                      if text(model, w.child_by_field_name("left")) == name]
            if writes and self._consumed(model, fn, gnames, {name},
                                         min(w.end_byte for w in writes)):
                consumers += 1
        return consumers

    def _consumed(self, model, fn, gnames, names, after) -> bool:
        """Whether a loop or statement after ``after`` reads global data and uses ``names``."""
        loops = {(lp.node.start_byte, lp.node.end_byte): lp for lp in model.loops_in(fn)}
        for st in fn_nodes(model, fn, *LOOP_TYPES):
            lp = loops.get((st.start_byte, st.end_byte))
            if st.start_byte < after or lp is None or lp.var is None or \
                    not (identifiers(model, st) & names):
                continue
            for s in nodes_of(st, "subscript_expression", "pointer_expression"):
                if base_name(model, s) in gnames and assignment_of(s) is None and \
                        lp.var in identifiers(model, s):
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# CMP-02

class AlgorithmSubstitution(Detector):
    """CMP-02: recognisable GPU-friendly replacements of sequential algorithms.

    Shapes (low confidence: the reference is not visible): Jacobi ping-pong (a host loop launches
    a stencil kernel and swaps its input and output pointers; evidence: the swap), red-black
    ordering ((i + j) parity compared with a colour parameter), a bitonic network (an XOR partner
    index used for a compare-exchange), radix passes (``(key >> shift) & mask`` with the shift
    advanced by a host loop), pointer jumping (``x[i] = x[x[i]]``), level-synchronous
    BFS (``level[v] == cur`` with ``level[u] = cur + 1``, or a host level loop that advances the
    level argument of a kernel storing ``level + 1``). Relaxation (Bellman-Ford style) is not
    reported: it is also the natural port of a Bellman-Ford reference.
    """

    id = "CMP-02"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for ln, conf, note in self._all(model):
            if ln not in seen:
                seen.add(ln)
                yield Finding(ln, ln, conf, None, note)

    def _all(self, model):
        yield from self._jacobi_swap(model)
        yield from self._radix_digits(model)
        yield from self._level_loops(model)
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            params = {p.name for p in fn.params}
            int_params = {p.name for p in fn.params if not p.is_pointer}
            yield from self._kernel_shapes(model, fn, params, int_params)

    def _kernel_shapes(self, model, fn, params, int_params):
        written: dict[str, list[str]] = {}
        for n in fn_nodes(model, fn, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression":
                written.setdefault(base_name(model, left), []).append(
                    text(model, n.child_by_field_name("right")))
        for n in fn_nodes(model, fn, "assignment_expression", "init_declarator", "if_statement",
                          "call_expression", "binary_expression"):
            if not model.is_reachable(n):
                continue
            if n.type == "assignment_expression":
                left = strip(n.child_by_field_name("left"))
                right = strip(n.child_by_field_name("right"))
                if left is not None and right is not None and left.type == "subscript_expression" \
                        and right.type == "subscript_expression":
                    arr = base_name(model, left)
                    inner = [strip(i) for i in subscript_indices(right)]
                    if base_name(model, right) == arr and inner and inner[0] is not None and \
                            inner[0].type == "subscript_expression" and \
                            base_name(model, inner[0]) == arr:
                        yield line(n), 0.6, "pointer jumping"
            if n.type in ("init_declarator", "assignment_expression"):
                d = n.child_by_field_name("declarator") or n.child_by_field_name("left")
                v = n.child_by_field_name("value") or n.child_by_field_name("right")
                v = strip(v)
                if d is not None and d.type == "identifier" and v is not None and \
                        v.type == "binary_expression" and \
                        text(model, v.child_by_field_name("operator")) == "^":
                    a, b = v.child_by_field_name("left"), v.child_by_field_name("right")
                    if model.uses_thread_index(a) and model.eval_int(b, fn) is None and \
                            self._exchange(model, fn, text(model, d)):
                        yield line(n), 0.6, "bitonic partner index"
            if n.type == "if_statement":
                cond = n.child_by_field_name("condition")
                for b in nodes_of(cond, "binary_expression"):
                    op = text(model, b.child_by_field_name("operator"))
                    if op not in ("==", "!="):
                        continue
                    lhs, rhs = strip(b.child_by_field_name("left")), strip(b.child_by_field_name("right"))
                    for x, y in ((lhs, rhs), (rhs, lhs)):
                        if x is None or y is None:
                            continue
                        if y.type == "identifier" and text(model, y) in int_params:
                            if self._parity(model, fn, x):
                                yield line(n), 0.55, "red-black colour"
                            elif op == "==" and x.type == "subscript_expression" and any(
                                    self._is_plus_one(model, r, text(model, y))
                                    for r in written.get(base_name(model, x), [])):
                                yield line(n), 0.55, "level-synchronous BFS"

    def _level_loops(self, model):
        """A host loop that launches a kernel with a level argument it advances by one, where
        the kernel stores ``level + 1`` into an array element (level-synchronous BFS; evidence:
        the level loop)."""
        for la in model.launches_of():
            lp = la.in_loop
            k = model.function_of(la.kernel)
            if lp is None or k is None or k.body is None:
                continue
            args = _launch_args(model, la)
            for i, p in enumerate(k.params):
                if p.is_pointer or i >= len(args):
                    continue
                arg = args[i].strip()
                advanced = (arg == lp.var and lp.step_value == 1) or (
                    arg != lp.var and self._incremented(model, lp.node, arg))
                if advanced and self._writes_plus_one(model, k, p.name):
                    yield lp.line_start, 0.55, "level-synchronous BFS (level loop)"
                    break
                # the host passes `level + 1` and the kernel stores the parameter as it is
                m = re.fullmatch(r"\(?\s*(\w+)\s*\+\s*1\s*\)?", arg)
                if m and (m.group(1) == lp.var or self._incremented(model, lp.node, m.group(1))) \
                        and self._stores_value(model, k, p.name):
                    yield lp.line_start, 0.55, "level-synchronous BFS (level loop)"
                    break
        # the same level loop inside one persistent kernel (levels separated by grid barriers)
        for k in model.reachable_kernels():
            for lp in model.loops_in(k):
                if lp.var and lp.step_value == 1 and self._writes_plus_one(model, k, lp.var):
                    yield lp.line_start, 0.55, "level-synchronous BFS (device level loop)"

    @staticmethod
    def _stores_value(model, k, name) -> bool:
        """Kernel ``k`` stores parameter ``name`` itself into an array element (``lev[v] = d``)."""
        for n in fn_nodes(model, k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression" and \
                    text(model, strip(n.child_by_field_name("right"))) == name:
                return True
        return False

    def _writes_plus_one(self, model, k, name) -> bool:
        for n in fn_nodes(model, k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression" and \
                    self._is_plus_one(model, text(model, n.child_by_field_name("right")), name):
                return True
        for c in fn_nodes(model, k, "call_expression"):
            if _short(text(model, c.child_by_field_name("function"))) in (
                    "atomicCAS", "atomicExch", "atomicMin"):
                args = c.child_by_field_name("arguments")
                if args is not None and any(self._is_plus_one(model, text(model, a), name)
                                            for a in args.named_children[1:]):
                    return True
        return False

    @staticmethod
    def _incremented(model, loop_node, name) -> bool:
        for n in nodes_of(loop_node, "update_expression", "assignment_expression"):
            if n.type == "update_expression":
                if text(model, n.child_by_field_name("argument")) == name and "++" in text(model, n):
                    return True
            elif text(model, n.child_by_field_name("left")) == name and \
                    text(model, n.child_by_field_name("operator")) == "+=" and \
                    model.eval_int(n.child_by_field_name("right")) == 1:
                return True
        return False

    def _radix_digits(self, model):
        """``(key >> shift) & mask`` in a kernel whose ``shift`` parameter a host loop advances."""
        for la in model.launches_of():
            if la.in_loop is None or la.in_loop.var is None:
                continue
            k = model.function_of(la.kernel)
            if k is None or k.body is None:
                continue
            args = _launch_args(model, la)
            params = [p.name for p in k.params]
            shifts = {params[i] for i, a in enumerate(args)
                      if i < len(params) and la.in_loop.var in a.replace("(", " ").replace(
                          ")", " ").split()}
            for n in fn_nodes(model, k, "binary_expression"):
                if text(model, n.child_by_field_name("operator")) != "&":
                    continue
                left = strip(n.child_by_field_name("left"))
                if left is not None and left.type == "binary_expression" and \
                        text(model, left.child_by_field_name("operator")) == ">>" and \
                        text(model, strip(left.child_by_field_name("right"))) in shifts and \
                        model.eval_int(n.child_by_field_name("right"), k) is not None:
                    yield line(n), 0.5, "radix digit pass"

    def _exchange(self, model, fn, name) -> bool:
        """``name`` indexes an array that is both read and written (a compare-exchange)."""
        arrays_r, arrays_w = set(), set()
        for s in fn_nodes(model, fn, "subscript_expression"):
            if name in {text(model, strip(i)) for i in subscript_indices(s)}:
                (arrays_w if assignment_of(s) is not None else arrays_r).add(base_name(model, s))
        return bool(arrays_r & arrays_w)

    @staticmethod
    def _parity(model, fn, x) -> bool:
        x = strip(x)
        if x is None or x.type != "binary_expression":
            return False
        op = text(model, x.child_by_field_name("operator"))
        k = model.eval_int(x.child_by_field_name("right"), fn)
        left = strip(x.child_by_field_name("left"))
        return ((op == "%" and k == 2) or (op == "&" and k == 1)) and left is not None and \
            left.type == "binary_expression" and \
            text(model, left.child_by_field_name("operator")) == "+" and \
            model.uses_thread_index(left)

    @staticmethod
    def _is_plus_one(model, rhs_text, param) -> bool:
        return rhs_text.replace(" ", "") in (f"{param}+1", f"1+{param}")

    def _jacobi_swap(self, model):
        stencil = {k.name for k in model.reachable_kernels() if self._is_relaxation(model, k)}
        for loop in model.loops_in():
            fn = model.function_of(loop.function) if loop.function else None
            if fn is None or fn.is_kernel or fn.is_device and not fn.is_host:
                continue
            launches = [la for la in model.launches_of()
                        if la.kernel in stencil and
                        loop.node.start_byte <= la.node.start_byte < loop.node.end_byte]
            if not launches:
                continue
            args = set()
            for la in launches:
                args |= {a.strip("&* ") for a in _launch_args(model, la)}
            for ln, a, b in self._swaps(model, loop.node):
                if a in args and b in args:
                    yield ln, 0.5, f"Jacobi ping-pong swap of {a} and {b}"

    @staticmethod
    def _is_relaxation(model, k) -> bool:
        """A Jacobi-style update: an element is written from its neighbours in another array
        (two or more distinct indices) without reading the old value at its own index, as in
        x_new[i] = (b[i] - sum_j a_ij x[j]) / a_ii. Explicit time steps read the centre too."""
        if k.body is None:
            return False
        ptrs = {p.name for p in k.params if p.is_pointer}
        for n in fn_nodes(model, k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is None or left.type != "subscript_expression" or \
                    base_name(model, left) not in ptrs:
                continue
            target = base_name(model, left)
            own = [text(model, i).replace(" ", "") for i in subscript_indices(left)]
            exprs = [n.child_by_field_name("right")]
            for name in identifiers(model, exprs[0]):
                exprs += [r for op, r in local_defs_op(model, k, name)]
            reads: dict[str, set[str]] = {}
            for e in exprs:
                for sub in nodes_of(e, "subscript_expression"):
                    arr = base_name(model, sub)
                    if arr in ptrs and arr != target:
                        reads.setdefault(arr, set()).add(
                            ",".join(text(model, i).replace(" ", "")
                                     for i in subscript_indices(sub)))
            if any(len(ix) >= 2 and ",".join(own) not in ix for ix in reads.values()):
                return True
        return False

    def _swaps(self, model, loop_node):
        for c in nodes_of(loop_node, "call_expression"):
            if _short(text(model, c.child_by_field_name("function"))) == "swap":
                args = c.child_by_field_name("arguments")
                if args is not None and args.named_child_count == 2:
                    yield line(c), text(model, args.named_children[0]), \
                        text(model, args.named_children[1])
        # t = a; a = b; b = t;
        assigns = []
        for n in nodes_of(loop_node, "init_declarator", "assignment_expression"):
            d = n.child_by_field_name("declarator") or n.child_by_field_name("left")
            v = n.child_by_field_name("value") or n.child_by_field_name("right")
            if d is not None and v is not None and n.type == "init_declarator" and \
                    d.type == "pointer_declarator":
                d = d.child_by_field_name("declarator")
            if d is not None and v is not None and d.type == "identifier" and \
                    strip(v) is not None and strip(v).type == "identifier":
                assigns.append((line(n), text(model, d), text(model, strip(v))))
        for i in range(len(assigns) - 2):
            (l1, t, a), (_, a2, b), (_, b2, t2) = assigns[i:i + 3]
            if a == a2 and b == b2 and t == t2:
                yield l1, a, b


# ---------------------------------------------------------------------------------------------
# CMP-03

class Precomputation(Detector):
    """CMP-03: tables of computed values built once and reused.

    Shapes: a host loop that fills an array with math-function values later copied to the device;
    a setup kernel, launched outside loops, that writes a table of math-function values (reading
    no global input) that another kernel receives; a ``__shared__`` table filled with such values
    before a barrier. Evidence: the statement that fills the table.
    """

    id = "CMP-03"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for ln, conf, note in list(self._host_tables(model)) + list(self._setup_kernels(model)) \
                + list(self._shared_tables(model)):
            if ln not in seen:
                seen.add(ln)
                yield Finding(ln, ln, conf, None, note)

    def _math_rhs(self, model, fn, rhs, scope) -> bool:
        """The right side calls a math function (directly or via a local defined in ``scope``)
        and reads no array."""
        if any(True for _ in nodes_of(rhs, "subscript_expression", "pointer_expression")):
            return False
        if any(_is_math_call(model, c) for c in nodes_of(rhs, "call_expression")):
            return True
        for name in identifiers(model, rhs):
            for _op, d in local_defs_op(model, fn, name):
                if scope.start_byte <= d.start_byte < scope.end_byte and \
                        not any(True for _ in nodes_of(d, "subscript_expression")) and \
                        any(_is_math_call(model, c) for c in nodes_of(d, "call_expression")):
                    return True
        return False

    def _host_tables(self, model):
        copied = set()
        for c in model.calls_in():
            if c.category in ("copy", "copy_symbol", "copy_async") and len(c.args) >= 2:
                copied |= set(c.args[1].replace("(", " ").replace(")", " ").replace(".", " ")
                              .replace("&", " ").replace("[", " ").split())
        for fn in model.reachable_functions():
            if fn.body is None or fn.is_kernel or (fn.is_device and not fn.is_host):
                continue
            for n in fn_nodes(model, fn, "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression" or \
                        text(model, n.child_by_field_name("operator")) != "=":
                    continue
                loops = enclosing_loops(n, fn)
                if not loops or base_name(model, left) not in copied or not model.is_reachable(n):
                    continue
                if self._math_rhs(model, fn, n.child_by_field_name("right"), loops[0]):
                    yield line(n), 0.65, "host-computed table copied to the device"

    def _setup_kernels(self, model):
        kernels = model.reachable_kernels()
        for k in kernels:
            launches = model.launches_of(k.name)
            if not launches or any(la.in_loop is not None for la in launches) or k.body is None:
                continue
            gnames = global_names(model, k)
            others = set()
            for la2 in model.launches_of():
                if la2.kernel != k.name:
                    others |= {a.strip("&* ") for a in _launch_args(model, la2)}
            pnames = [p.name for p in k.params]
            for n in fn_nodes(model, k, "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression":
                    continue
                arr = base_name(model, left)
                if arr not in gnames or arr not in pnames or not model.is_reachable(n):
                    continue
                rhs = n.child_by_field_name("right")
                if _rhs_reads_global(model, k, rhs, gnames) or \
                        not self._math_rhs(model, k, rhs, k.body):
                    continue
                pos = pnames.index(arr)
                if any(pos < len(_launch_args(model, la)) and
                       _launch_args(model, la)[pos].strip("&* ") in others for la in launches):
                    yield line(n), 0.6, f"setup kernel {k.name} fills a table"

    def _shared_tables(self, model):
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            gnames = global_names(model, fn)
            for v in model.vars_in(fn, space="shared"):
                if not v.dims:
                    continue
                writes, reads, self_update = shared_array_uses(model, fn, v.name)
                if self_update or not reads:
                    continue
                for w in writes:
                    rhs = assignment_of(w).child_by_field_name("right")
                    if not _rhs_reads_global(model, fn, rhs, gnames) and \
                            self._math_rhs(model, fn, rhs, fn.body) and model.is_reachable(w):
                        yield line(w), 0.6, f"per-block table {v.name}"


# ---------------------------------------------------------------------------------------------
# CMP-04

class LoopUnrolling(Detector):
    """CMP-04: ``#pragma unroll`` / ``#pragma unroll N`` (N > 1) in reachable device code, and
    loops unrolled by hand (constant step K >= 4 whose body touches offsets 1..K-1 of the loop
    variable). ``#pragma unroll 1`` is the opposite and is left out. Intensity: the factor."""

    id = "CMP-04"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in device_functions(model)}
        loops = sorted(model.loops, key=lambda lp: lp.line_start)
        for p in model.pragmas:
            if p.function not in dev or not model.is_reachable(p.node):
                continue
            words = p.text.split("//")[0].split("/*")[0].replace("#pragma", "").split()
            if not words or words[0] != "unroll":
                continue
            rest = " ".join(words[1:]).strip("() ")
            fn = model.function_of(p.function)
            factor = None
            if rest:
                factor = model.eval_int(rest, fn)
                if factor is not None and factor <= 1:
                    continue
            else:
                nxt = next((lp for lp in loops if lp.line_start >= p.line and
                            lp.function == p.function), None)
                factor = nxt.trip_count if nxt is not None else None
            yield Finding(p.line, p.line, 0.9, float(factor) if factor else None,
                          f"#pragma unroll {rest}".strip())
        for lp in model.loops_in():
            if lp.function not in dev or lp.var is None or not lp.step_value or \
                    lp.step_value < 4 or lp.step_op not in (None, "+"):
                continue
            offsets = set()
            for s in nodes_of(lp.node.child_by_field_name("body"), "subscript_expression"):
                for ix in subscript_indices(s):
                    ix = strip(ix)
                    if ix is None:
                        continue
                    if ix.type == "identifier" and text(model, ix) == lp.var:
                        offsets.add(0)
                    elif ix.type == "binary_expression" and \
                            text(model, ix.child_by_field_name("operator")) == "+" and \
                            text(model, strip(ix.child_by_field_name("left"))) == lp.var:
                        k = model.eval_int(ix.child_by_field_name("right"))
                        if k is not None:
                            offsets.add(k)
            if set(range(1, lp.step_value)) <= offsets:
                yield Finding(lp.line_start, lp.line_start, 0.75, float(lp.step_value),
                              f"manual unroll by {lp.step_value}")


# ---------------------------------------------------------------------------------------------
# CMP-05

class FastMathIntrinsics(Detector):
    """CMP-05: calls of hardware intrinsics (``__expf``, ``__fdividef``, ``rsqrtf``, ``fmaf``
    ...) in reachable device code. Accurate library functions and host calls are left out."""

    id = "CMP-05"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in device_functions(model)}
        for c in model.calls_in():
            if c.function not in dev:
                continue
            conf = FAST_INTRINSICS.get(_short(c.name))
            if conf is not None:
                yield Finding(c.line, c.line, conf, None, c.name)


# ---------------------------------------------------------------------------------------------
# CMP-06

class DivergenceReduction(Detector):
    """CMP-06: branchless selects and warp-uniform branches in reachable device code.

    Reported: a comparison used as a number (``x * (x > 0)``, ``(float)(a < b)``, ``-(a < b)``);
    an ``if`` whose condition is a warp vote; a predicated update inside a loop,
    ``x = cond ? new : x`` with plain arithmetic arms. Ordinary branches, bounds-guarded loads,
    other conditional expressions and votes used only as bit masks are left out.
    """

    id = "CMP-06"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for fn in device_functions(model):
            if fn.body is None:
                continue
            for n in fn_nodes(model, fn, "binary_expression", "cast_expression", "unary_expression",
                              "if_statement", "conditional_expression", "assignment_expression"):
                if not model.is_reachable(n):
                    continue
                hit = self._check(model, fn, n)
                if hit and line(n) not in seen:
                    seen.add(line(n))
                    yield Finding(line(n), line(n), hit[0], None, hit[1])

    def _check(self, model, fn, n):
        t = n.type
        if t == "binary_expression" and text(model, n.child_by_field_name("operator")) in (
                "*", "+", "-", "&"):
            for side in (n.child_by_field_name("left"), n.child_by_field_name("right")):
                if self._is_compare(model, side):
                    return 0.7, "comparison used arithmetically"
        if t == "cast_expression" and self._is_compare(model, n.child_by_field_name("value")):
            tname = text(model, n.child_by_field_name("type")).strip()
            if tname in SCALAR_BYTES and tname != "bool":
                return 0.7, "comparison converted to a number"
        if t == "assignment_expression" and text(model, n.child_by_field_name("operator")) in (
                "+=", "-=", "*=") and self._is_compare(model, n.child_by_field_name("right")):
            return 0.65, "comparison accumulated as a number"
        if t == "unary_expression" and text(model, n.child_by_field_name("operator")) == "-" \
                and self._is_compare(model, n.child_by_field_name("argument")):
            return 0.7, "comparison mask"
        if t == "if_statement":
            cond = n.child_by_field_name("condition")
            for c in nodes_of(cond, "call_expression"):
                if _short(text(model, c.child_by_field_name("function"))) in VOTES:
                    return 0.7, "warp-uniform branch on a vote"
        if t == "conditional_expression" and enclosing_loops(n, fn):
            arms = [n.child_by_field_name("consequence"), n.child_by_field_name("alternative")]
            p = n.parent
            while p is not None and p.type == "parenthesized_expression":
                p = p.parent
            target = text(model, p.child_by_field_name("left")) \
                if p is not None and p.type == "assignment_expression" else None
            if target and all(a is not None and self._plain(model, a) for a in arms) and \
                    target in {text(model, strip(a)) for a in arms}:
                return 0.55, "predicated update (select instead of a branch)"
        return None

    @staticmethod
    def _is_compare(model, node) -> bool:
        node = strip(node)
        return node is not None and node.type == "binary_expression" and \
            text(model, node.child_by_field_name("operator")) in COMPARE_OPS

    @staticmethod
    def _plain(model, node) -> bool:
        return not any(True for _ in nodes_of(
            node, "subscript_expression", "pointer_expression", "call_expression",
            "assignment_expression", "update_expression", "conditional_expression")) or \
            strip(node).type in ("identifier", "number_literal")


# ---------------------------------------------------------------------------------------------
# CMP-07

class CompileTimeSpecialization(Detector):
    """CMP-07: kernels and device functions with non-type template parameters (sizes, modes)
    instantiated from reachable code with constant arguments. Evidence: the template line;
    intensity: distinct instantiations. Type-only templates and host templates are left out."""

    id = "CMP-07"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        sites: dict[str, set[tuple[str, ...]]] = {}
        for la in model.launches_of():
            if la.template_args:
                caller = model.function_of(la.caller) if la.caller else None
                if self._constant_args(model, caller, la.template_args):
                    sites.setdefault(la.kernel, set()).add(tuple(la.template_args))
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for c in fn_nodes(model, fn, "call_expression"):
                f = c.child_by_field_name("function")
                if f is None or f.type != "template_function" or not model.is_reachable(c):
                    continue
                targs = f.child_by_field_name("arguments")
                args = [text(model, a) for a in targs.named_children] if targs is not None else []
                if args and self._constant_args(model, fn, args):
                    sites.setdefault(text(model, f.child_by_field_name("name")), set()).add(
                        tuple(args))
        done = set()
        for name, insts in sites.items():
            for fn in model.functions.get(name, []):
                if not (fn.is_kernel or fn.is_device) or fn.name not in model.reachable:
                    continue
                tmpl = fn.node.parent
                if tmpl is None or tmpl.type != "template_declaration":
                    continue
                if not self._non_type_params(model, tmpl) or tmpl.id in done:
                    continue
                done.add(tmpl.id)
                ln = line(tmpl)
                yield Finding(ln, ln, 0.8 if len(insts) >= 2 else 0.65, float(len(insts)),
                              f"{name}: {len(insts)} instantiation(s)")

    @staticmethod
    def _non_type_params(model, tmpl) -> list[str]:
        plist = tmpl.child_by_field_name("parameters")
        out = []
        for p in (plist.named_children if plist is not None else []):
            if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                out.append(text(model, p))
        return out

    @staticmethod
    def _constant_args(model, caller, args) -> bool:
        tparams = set(caller.template_params) if caller is not None else set()
        ok = False
        for a in args:
            a = a.strip()
            if a in ("true", "false") or model.eval_int(a, caller) is not None or a in tparams:
                ok = True
            elif types_only(a):
                continue
            else:
                return False
        return ok


def types_only(arg: str) -> bool:
    """A template argument that names a type (float, double, int, float4 ...)."""
    return arg.replace("unsigned", "").replace("const", "").replace("*", "").strip() in (
        set(SCALAR_BYTES) | {"float2", "float4", "double2", "int2", "int4", ""})


# ---------------------------------------------------------------------------------------------
# CMP-08

class BitLevelParallelism(Detector):
    """CMP-08: packed bit state in reachable device code: bit intrinsics (``__popc``, ``__ffs``,
    ``__clz``, ``__brev``), ballots, bitwise atomics on words, and bitset tests or sets of the
    form ``word[i >> 5] & mask``. Shifts used only for index arithmetic are left out."""

    id = "CMP-08"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in device_functions(model)}
        seen: set[int] = set()
        for c in model.calls_in():
            if c.function not in dev:
                continue
            short = _short(c.name)
            if short in ("__ballot_sync", "__ballot") and self._vote_only(c.node):
                continue
            if short in BIT_CALLS or (short in BIT_ATOMICS and len(c.args) >= 2 and
                                      model.eval_int(c.args[1]) not in (0, 1)):
                if c.line not in seen:
                    seen.add(c.line)
                    yield Finding(c.line, c.line, 0.8 if short != "__ballot_sync" else 0.65,
                                  None, c.name)
        for fn in device_functions(model):
            if fn.body is None:
                continue
            for n in fn_nodes(model, fn, "binary_expression", "assignment_expression"):
                if not model.is_reachable(n) or line(n) in seen:
                    continue
                op = text(model, n.child_by_field_name("operator"))
                if op not in ("&", "|", "^", "&=", "|=", "^="):
                    continue
                sides = [n.child_by_field_name("left"), n.child_by_field_name("right")]
                if any(self._word_of(model, fn, s) for s in sides):
                    seen.add(line(n))
                    yield Finding(line(n), line(n), 0.75, None, "bitset word operation")

    @staticmethod
    def _vote_only(node) -> bool:
        """A ballot used directly as a branch condition (a warp vote, CMP-06), not as bits."""
        p = node.parent
        while p is not None and p.type in ("parenthesized_expression", "unary_expression",
                                           "condition_clause"):
            if p.type == "condition_clause":
                return True
            p = p.parent
        return p is not None and p.type in ("if_statement", "while_statement")

    @staticmethod
    def _word_of(model, fn, node) -> bool:
        node = strip(node)
        if node is None or node.type != "subscript_expression":
            return False
        for ix in subscript_indices(node):
            ix = strip(ix)
            if ix is not None and ix.type == "binary_expression":
                op = text(model, ix.child_by_field_name("operator"))
                k = model.eval_int(ix.child_by_field_name("right"), fn)
                if (op == ">>" and k in (5, 6)) or (op == "/" and k in (32, 64)):
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# CMP-09

class WorkPruning(Detector):
    """CMP-09: early exits that skip work beyond the reference.

    Reported: a return/continue/break guarded by an element of an integral flag array that the
    solution maintains itself (not filled from the entry point's inputs), and a break/continue in
    a loop guarded by a comparison of a value accumulated in that loop against a variable bound
    (a best-so-far). Bounds checks, input masks and scalar stopping flags (HST-04) are left out.
    """

    id = "CMP-09"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        inputs = self._input_buffers(model)
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            for n in fn_nodes(model, fn, "if_statement"):
                jump = _body_stmt(n.child_by_field_name("consequence"))
                if jump is None or not model.is_reachable(n):
                    continue
                cond = n.child_by_field_name("condition")
                if self._flag_guard(model, fn, cond, inputs):
                    yield Finding(line(n), line(n), 0.6, None, "skip inactive element")
                elif jump.type in ("break_statement", "continue_statement") and \
                        self._bound_guard(model, fn, n, cond):
                    yield Finding(line(n), line(n), 0.55, None, "bounded search")

    def _flag_guard(self, model, fn, cond, inputs) -> bool:
        node = strip(cond)
        if node is not None and node.type == "unary_expression" and \
                text(model, node.child_by_field_name("operator")) == "!":
            node = strip(node.child_by_field_name("argument"))
        elif node is not None and node.type == "binary_expression" and \
                text(model, node.child_by_field_name("operator")) in ("==", "!="):
            lhs, rhs = strip(node.child_by_field_name("left")), strip(node.child_by_field_name("right"))
            if rhs is not None and text(model, rhs) in ("0", "1", "true", "false"):
                node = lhs
            elif lhs is not None and text(model, lhs) in ("0", "1", "true", "false"):
                node = rhs
            else:
                return False
        if node is None or node.type != "subscript_expression":
            return False
        arr = base_name(model, node)
        params = [p.name for p in fn.params]
        if arr not in params:
            return False
        t = types(model).type_of(fn, arr)
        if t is None or t[0] not in INTEGRAL:
            return False
        if not any(model.uses_thread_index(ix) for ix in subscript_indices(node)):
            return False
        pos = params.index(arr)
        args = [(_launch_args(model, la), la) for la in model.launches_of(fn.name)]
        return bool(args) and all(pos < len(a) and a[pos].split("+")[0].strip("&*() ") not in
                                  inputs.get(la.caller, set()) for a, la in args)

    @staticmethod
    def _input_buffers(model) -> dict[str, set[str]]:
        """Per host function, device buffers filled from that function's own parameters."""
        out: dict[str, set[str]] = {}
        for c in model.calls_in():
            fn = model.function_of(c.function) if c.function else None
            if fn is None or c.category not in ("copy", "copy_async") or len(c.args) < 2:
                continue
            params = {p.name for p in fn.params}
            src = c.args[1].split("+")[0].strip("&*() ")
            if src in params:
                out.setdefault(fn.name, set()).add(c.args[0].split("+")[0].strip("&*() "))
        return out

    def _bound_guard(self, model, fn, if_node, cond) -> bool:
        loops = enclosing_loops(if_node, fn)
        node = strip(cond)
        if not loops or node is None or node.type != "binary_expression" or \
                text(model, node.child_by_field_name("operator")) not in ("<", ">", "<=", ">="):
            return False
        lhs, rhs = strip(node.child_by_field_name("left")), strip(node.child_by_field_name("right"))
        for acc, bound in ((lhs, rhs), (rhs, lhs)):
            if acc is None or bound is None or acc.type != "identifier":
                continue
            if bound.type in ("number_literal",) or model.eval_int(bound, fn) is not None:
                continue
            name = text(model, acc)
            accumulated = any(
                text(model, a.child_by_field_name("left")) == name and
                text(model, a.child_by_field_name("operator")) in ("+=", "-=", "*=")
                for a in nodes_of(loops[0], "assignment_expression"))
            bnames = identifiers(model, bound)
            bound_var = any(
                text(model, a.child_by_field_name("left")) in bnames
                for a in fn_nodes(model, fn, "assignment_expression")) or \
                any(True for _ in nodes_of(bound, "subscript_expression"))
            if accumulated and bound_var and not model.uses_thread_index(bound):
                return True
        return False


DETECTORS = [KernelFusion, AlgorithmSubstitution, Precomputation, LoopUnrolling,
             FastMathIntrinsics, DivergenceReduction, CompileTimeSpecialization,
             BitLevelParallelism, WorkPruning]
