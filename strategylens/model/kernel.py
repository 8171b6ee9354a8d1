"""Kernel-side facts the detectors share: shared arrays and how they are used, barriers, guards
that leave one thread, atomics and what their value does, spin-wait barriers and grid-stride
loops."""

from __future__ import annotations

import re
from functools import cached_property

from tree_sitter import Node

from strategylens.model.items import Call, Function, Loop
from strategylens.model.syntax import (LOOP_TYPES, ancestors, assignment_of, call_args, inside,
                                       nodes_of, squash, subscript_index, unparen, walk)

# CUB's block- and warp-level collective classes (cub::BlockLoad<T, 128, 4, ALGORITHM>, ...)
_CUB_COLLECTIVE = re.compile(r"\b((?:Block|Warp)(?:Load|Store|Exchange|RadixSort|MergeSort|Scan|"
                             r"Reduce|Histogram|Discontinuity|Shuffle|AdjacentDifference|"
                             r"RunLengthDecode))\s*<(.*)>\s*$", re.S)
_NAME_NODES = ("identifier", "type_identifier", "namespace_identifier")

_BARRIERS = ("__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
             "__syncwarp")


def halving_or_doubling(loop: Loop) -> bool:
    """A loop whose variable halves or doubles each iteration (``s >>= 1``, ``d *= 2``)."""
    op = loop.step_op or ""
    step = squash(loop.step or "")
    return op in (">>", "/", "<<", "*") or any(s in step for s in (">>=1", "/=2", "<<=1", "*=2"))


def _breaks_out(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type in ("break_statement", "return_statement"):
        return True
    if node.type == "compound_statement":
        return any(c.type in ("break_statement", "return_statement") for c in node.named_children)
    return False


def _long(loop: Loop) -> bool:
    """Not a short fixed loop: more than 32 iterations, or a bound not known."""
    return loop.trip_count is None or loop.trip_count > 32


# the thread index written as itself or as the global linear id (squashed text)
_THREAD_IDS = {"threadIdx.x"} | {f"{a}+{b}" for p in ("blockIdx.x*blockDim.x",
                                                      "blockDim.x*blockIdx.x")
                                 for a, b in ((p, "threadIdx.x"), ("threadIdx.x", p))}


class KernelFacts:
    """Queries over kernels and device functions."""

    @cached_property
    def kernel_weights(self) -> dict[str, float]:
        """Each reachable kernel's share of the work as an order of growth: host loops of the
        solution around its launches (timing loops left out), plus 1 when its grid spans the
        problem (not a one-block launch, not a body only one thread runs), plus its deepest nest
        of loops that are not short and fixed (over 32 iterations, or a bound not known). A
        kernel never launched here is weighed by its body alone."""
        from strategylens.model.problem import product

        out: dict[str, float] = {}
        for k in self.reachable_kernels():
            inner = self._work_depth(k)
            accesses = [a for a in self.accesses_in(k) if a.space == "global"]
            one_thread = bool(accesses) and all(self.single_thread_guarded(k, a.node)
                                                for a in accesses)
            best = None
            for la in self.launches_of(k.name):
                grid = 0.0 if one_thread or (la.grid_value is not None
                                             and product(la.grid_value) == 1) else 1.0
                host = sum(1 for lp in self.host_loops()
                           if inside(la.node, lp.node) and _long(lp))
                order = grid + inner + host
                best = order if best is None else max(best, order)
            out[k.name] = best if best is not None else (0.0 if one_thread else 1.0) + inner
        return out

    def _work_depth(self, fn: Function) -> int:
        best = 0
        for f in self._device_closure(fn):
            loops = [lp for lp in self.loops if lp.function == f.name and _long(lp)]
            for lp in loops:
                best = max(best, sum(1 for o in loops if inside(lp.node, o.node)))
        return best

    def minor_kernel(self, fn: Function) -> bool:
        """``fn`` does less work than the file's heaviest kernel (a lower order of growth in
        :attr:`kernel_weights`): a helper pass, not where the time goes."""
        weights = self.kernel_weights
        return fn.name in weights and weights[fn.name] < max(weights.values())

    def cub_collectives(self, fn: Function) -> list[tuple[Node, str, str]]:
        """The CUB block- and warp-level collectives ``fn`` names, directly
        (``cub::BlockRadixSort<int, 128, 4>``) or through a type alias (``using LoadT =
        cub::BlockLoad<T, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>``, ``Traits::LoadT``):
        ``(node, class, template arguments)``, class bare (``'BlockLoad'``); one per line and
        class. Only in files that name the ``cub`` or ``hipcub`` namespace."""
        if fn.body is None or not re.search(r"\b(hip)?cub\b", self.text):
            return []
        out, seen = [], set()
        for n in walk(fn.body):
            if n.type not in _NAME_NODES:
                continue
            text = self.text_of(n)
            for _ in range(4):  # follow aliases of aliases
                if text not in self.type_aliases:
                    break
                text = self.type_aliases[text].strip()
            if text == self.text_of(n) and n.parent is not None and \
                    n.parent.type == "template_type":
                text = self.text_of(n.parent)
            m = _CUB_COLLECTIVE.search(text)
            key = (n.start_point[0], m.group(1) if m else None)
            if m and key not in seen:
                seen.add(key)
                out.append((n, m.group(1), m.group(2)))
        return out

    def shared_names(self, fn: Function) -> set[str]:
        """Shared arrays visible in ``fn`` (its own and file-scope ones)."""
        return {v.name for v in self.vars if v.space == "shared" and v.function in (fn.name, None)}

    def shared_views(self, fn: Function) -> set[str]:
        """Shared arrays ``fn`` works on: its own and file-scope ones, local pointers into them
        (``float *s = (float *)&s_data[0]``), and pointer parameters that a caller passes a
        shared array or such a pointer to (``get_block_min(values, idx)`` with
        ``__shared__ int idx[256]``)."""
        return self._shared_views(fn, 0)

    def _shared_views(self, fn: Function, depth: int) -> set[str]:
        names = self.shared_names(fn)
        if depth < 2 and fn.is_device:
            for c in self.calls_in(all=True):
                if c.unqualified != fn.name.rsplit("::", 1)[-1] or c.function == fn.name:
                    continue
                caller = self.function_of(c.function) if c.function else None
                if caller is None:
                    continue
                outer = self._shared_views(caller, depth + 1)
                for i, arg in enumerate(c.args):
                    ids = set(re.findall(r"[A-Za-z_]\w*", arg))
                    if i < len(fn.params) and fn.params[i].is_pointer and ids & outer:
                        names.add(fn.params[i].name)
        for name, value, node in self.assignments(fn):
            ids = self.identifiers(value)
            if ids & names and re.search(rf"\*\s*{re.escape(name)}\s*=", self.text_of(node)) \
                    and not any(x.type == "call_expression" for x in walk(value)):
                names.add(name)
        return names

    def shared_array_uses(self, fn: Function, name: str, through_calls: bool = False,
                          _depth: int = 0) -> tuple[list[Node], list[Node], bool]:
        """Writes and reads (subscript nodes) of a shared array in ``fn``, and whether any
        statement reads and writes it at once (a reduction or scan workspace). With
        ``through_calls``, also its uses inside the device helpers ``fn`` passes it to
        (``load_tile(sa, A, ...)`` writes ``sa`` through the helper's parameter)."""
        writes, reads, self_update = [], [], False
        if through_calls and _depth < 3:
            for c in self.calls_in(fn):
                helper = self.function_of(c.name)
                if helper is None or helper.body is None or helper is fn or helper.is_kernel:
                    continue
                for i, arg in enumerate(c.args):
                    if i < len(helper.params) and helper.params[i].is_pointer and \
                            arg.strip("&() ").split("[")[0].strip() == name:
                        w, r, u = self.shared_array_uses(helper, helper.params[i].name, True,
                                                         _depth + 1)
                        writes += w
                        reads += r
                        self_update = self_update or u
        for n in self.fn_nodes(fn, "subscript_expression"):
            if n.parent is not None and n.parent.type == "subscript_expression" and \
                    n.parent.child_by_field_name("argument") is not None and \
                    n.parent.child_by_field_name("argument").id == n.id:
                continue  # inner part of a[i][j]
            if self.array_name(n) != name:
                continue
            asg = assignment_of(n)
            if asg is not None:
                writes.append(n)
                op = self.text_of(asg.child_by_field_name("operator"))
                rhs = unparen(asg.child_by_field_name("right"))
                copy = op == "=" and rhs is not None and rhs.type == "subscript_expression" \
                    and self.array_name(rhs) == name  # s[j][0] = s[j][n]: a halo image
                if not copy and (op != "=" or any(self.array_name(s) == name
                                                  for s in nodes_of(rhs, "subscript_expression"))):
                    self_update = True
            elif n.parent is not None and n.parent.type == "update_expression":
                writes.append(n)
                self_update = True
            else:
                reads.append(n)
        return writes, reads, self_update

    def is_barrier(self, call_node: Node) -> bool:
        """A block, warp or group barrier call (``__syncthreads``, ``tile.sync()``, ...)."""
        name = self.text_of(call_node.child_by_field_name("function"))
        return name in _BARRIERS or name.endswith(".sync") or name.endswith("::sync") or \
            name.endswith("barrier_sync") or name.endswith(".arrive_and_wait")

    def single_thread_guarded(self, fn: Function, node: Node) -> bool:
        """Inside ``if (lane == 0)``-style code: only one thread (per warp or block) runs it."""
        for a in ancestors(node, fn.node):
            if a.type != "if_statement":
                continue
            for b in nodes_of(a.child_by_field_name("condition"), "binary_expression"):
                if self.text_of(b.child_by_field_name("operator")) == "==" and (
                        self.uses_thread_index(b.child_by_field_name("left")) or
                        self.uses_thread_index(b.child_by_field_name("right"))):
                    return True
        return False

    def first_thread_guarded(self, fn: Function, node: Node) -> bool:
        """Inside ``if (threadIdx.x == 0)`` (or a thread-index variable compared to 0): code
        that one thread of the block runs once, such as setting up a table. A thread picked by
        data (``tid == winner``) does not count."""
        tiv = self.thread_index_vars(fn) | {"threadIdx.x"}
        for a in ancestors(node, fn.node):
            if a.type != "if_statement":
                continue
            for b in nodes_of(a.child_by_field_name("condition"), "binary_expression"):
                sides = {self.text_of(unparen(b.child_by_field_name(k))) for k in ("left", "right")}
                if self.text_of(b.child_by_field_name("operator")) == "==" and "0" in sides and \
                        sides & tiv:
                    return True
        return False

    def block_size_params(self, fn: Function) -> set[str]:
        """Template parameters of ``fn`` that are its block size: named alone in
        __launch_bounds__, passed at every launch as the same expression as the block
        (``k<BS><<<GS, BS>>>``), or given as the thread count of a CUB block collective (the
        second template argument, BLOCK_DIM_X: ``cub::BlockReduce<T, BS>``)."""
        names = set()
        if fn.launch_bounds and fn.launch_bounds[0].strip() in fn.template_params:
            names.add(fn.launch_bounds[0].strip())
        launches = self.launches_of(fn.name)
        for i, tp in enumerate(fn.template_params):
            if launches and all(i < len(la.template_args) and
                                la.template_args[i].strip() == la.block.strip() for la in launches):
                names.add(tp)
        for n in walk(fn.node):
            if n.type == "template_type" and \
                    re.fullmatch(r"(::)?cub::Block[A-Z]\w*", squash(self.text_of(n.parent)).split("<")[0]):
                args = [a for a in (n.child_by_field_name("arguments") or n).named_children
                        if a.type != "comment"]
                if len(args) > 1 and squash(self.text_of(args[1])) in fn.template_params:
                    names.add(squash(self.text_of(args[1])))
        return names

    def group_lanes(self, fn: Function) -> dict[str, str]:
        """Lanes of thread groups of a size set at compile time or run time: ``lane =
        threadIdx.x % G`` (or ``& (G - 1)``) beside a group index ``g = ... threadIdx.x / G``
        (the thread index may be a local copy, ``tid = threadIdx.x``, or the global id
        ``blockIdx.x * blockDim.x + threadIdx.x``, whose groups are the block's when G divides
        the block). Lane name -> G's text."""
        tid = {"threadIdx.x"} | {name for name, value, _ in self.assignments(fn)
                                 if squash(self.text_of(unparen(value))) in _THREAD_IDS}
        tids = "|".join(re.escape(t) for t in sorted(tid))
        texts = [(name, squash(self.text_of(value))) for name, value, _ in self.assignments(fn)]
        lanes = {}
        for name, text in texts:
            m = re.fullmatch(rf"(?:\(\w+\))?\(?({tids})\)?(%|&)\(?(.+?)\)?", text)
            if m is None:
                continue
            size = m.group(3)
            if m.group(2) == "&":
                mask = self.eval_int(size, fn)
                size = str(mask + 1) if mask is not None else re.sub(r"-1$", "", size)
                if mask is None and size == m.group(3):
                    continue  # & MASK of unknown value: not a group size
            group = rf"(?<![\w.])\(?({tids})\)?/\(?{re.escape(size)}\)?(?![\w.])"
            if self.eval_int(size, fn) not in (0, 1) and any(re.search(group, t) for _, t in texts):
                lanes[name] = size
        return lanes

    def tree_combine(self, loop: Loop, shared: set[str]) -> bool:
        """``s[i] op= s[i + var]`` (or ``s[i] = f(s[i], s[i + var])``) on a shared array in the
        body of ``loop``."""
        var = loop.var
        if var is None:
            return False
        for n in walk(loop.node.child_by_field_name("body")):
            if n.type != "assignment_expression":
                continue
            left = n.child_by_field_name("left")
            if left is None or left.type != "subscript_expression":
                continue
            arr = self.base_name(left)
            if arr not in shared:
                continue
            for x in walk(n.child_by_field_name("right")):
                if x.type == "subscript_expression" and self.base_name(x) == arr:
                    idx = squash(self.text_of(subscript_index(x) or x))
                    if re.search(r"\+\(?" + re.escape(var) + r"\b", idx) and "^" not in idx:
                        return True
        return False

    # ----- atomics -------------------------------------------------------------------------
    def target_is_scalar(self, fn: Function, target: Node | None) -> bool:
        """Whether an atomic's address argument names one location (``&count``, ``p``,
        ``&c[0]``), not an element picked by a computed index."""
        for n in walk(target):
            if n.type == "subscript_expression":
                idx = subscript_index(n)
                if idx is not None and self.eval_int(self.text_of(idx).strip("[] "), fn) is None:
                    return False
        return True

    def atomic_role(self, fn: Function, call: Call) -> str:
        """Classify an atomic call site: ``'work'`` (a counter that hands out work, LBL-01),
        ``'slot'`` (its value reserves an output position), ``'barrier'`` (arrival counter of a
        spin-wait grid barrier) or ``'combine'`` (a result is combined, PAR-06)."""
        base = call.name.rsplit("::", 1)[-1].split(".")[-1]
        args = call_args(call.node)
        target = args[0] if args else None
        if target is not None and self.identifiers(target) & self.spin_counters(fn):
            return "barrier"
        var = self.receiver_of(call.node)
        returned = any(p.type == "return_statement" for p in ancestors(call.node))
        if (var is None and not returned) or \
                not base.startswith(("atomicAdd", "atomicInc", "atomicSub", "fetch_add")):
            return "combine"
        tainted = self.derived(fn, {var}) if var is not None else set()
        if self._decides_exit(fn, tainted) or self._pops_work(fn, tainted, returned):
            return "work"
        for acc in self.accesses_in(fn):
            if acc.is_write or acc.index_node is None:
                continue
            if self.identifiers(acc.index_node) & tainted:
                return "work" if self.target_is_scalar(fn, target) else "slot"
        return "slot"

    def _decides_exit(self, fn: Function, tainted: set[str]) -> bool:
        """A value in ``tainted`` is compared with the work bound to leave a loop or ``fn``."""
        for n in walk(fn.body):
            if n.type in ("while_statement", "for_statement", "do_statement"):
                cond = n.child_by_field_name("condition")
                if cond is not None and self.identifiers(cond) & tainted:
                    return True
            elif n.type == "if_statement":
                cond = n.child_by_field_name("condition")
                if self.identifiers(cond) & tainted and \
                        _breaks_out(n.child_by_field_name("consequence")):
                    return True
        return False

    def _pops_work(self, fn: Function, tainted: set[str], returned: bool) -> bool:
        """``fn`` is a device helper that returns the claimed position (a queue's ``next()``)
        and a caller compares what it returns with the work bound to leave a loop."""
        if fn.is_kernel or not (returned or any(
                self.identifiers(r) & tainted for r in walk(fn.body)
                if r.type == "return_statement")):
            return False
        short = fn.name.rsplit("::", 1)[-1]
        for c in self.calls:
            g = self.function_of(c.function) if c.function else None
            var = self.receiver_of(c.node)
            if c.unqualified.split(".")[-1] == short and g is not None and g is not fn and \
                    g.body is not None and var is not None and \
                    self._decides_exit(g, self.derived(g, {var})):
                return True
        return False

    def slot_writes(self, fn: Function, call: Call) -> bool:
        """The atomic's returned value (or a value derived from it) indexes a write."""
        p = call.node.parent
        while p is not None and p.type in ("subscript_argument_list", "binary_expression",
                                           "parenthesized_expression"):
            p = p.parent
        if p is not None and p.type == "subscript_expression" and p.parent is not None and \
                p.parent.type == "assignment_expression" and \
                p.parent.child_by_field_name("left") == p:
            return True  # next[atomicAdd(&size, 1)] = v
        if p is not None and p.type == "assignment_expression" and \
                p.child_by_field_name("right") == call.node and \
                p.child_by_field_name("left").type == "subscript_expression":
            return True  # rank[i] = atomicAdd(&count[cell], 1): the slot, scattered later
        var = self.receiver_of(call.node)
        if var is None:
            return False
        tainted = self.derived(fn, {var})
        return any(a.is_write and a.index_node is not None and
                   self.identifiers(a.index_node) & tainted for a in self.accesses_in(fn))

    # ----- spin-wait barriers --------------------------------------------------------------
    def spin_counters(self, fn: Function) -> set[str]:
        """Names of global counters that ``fn`` spin-waits on (a software barrier)."""
        return {name for loop, name in self.spin_loops(fn)}

    def spin_loops(self, fn: Function) -> list[tuple[Node, str]]:
        """``(loop, counter)`` for empty-bodied while/do loops that poll a memory location."""
        out = []
        for n in walk(fn.body):
            if n.type not in ("while_statement", "do_statement") or \
                    not self._empty_body(n.child_by_field_name("body")):
                continue
            cond = n.child_by_field_name("condition")
            for x in walk(cond):
                if x.type == "call_expression" and \
                        "atomic" in self.text_of(x.child_by_field_name("function")):
                    args = call_args(x)
                    name = self.base_name(args[0]) if args else None
                    if name:
                        out.append((n, name))
                        break
                if x.type in ("pointer_expression", "subscript_expression"):
                    name = self.base_name(x)
                    if name:
                        out.append((n, name))
                        break
        return out

    def _empty_body(self, body: Node | None) -> bool:
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
                t = self.text_of(c)
                if any(k in t for k in ("__threadfence", "__nanosleep", "__builtin_ia32_pause")):
                    continue
            return False
        return True

    # ----- grid-stride loops ---------------------------------------------------------------
    def grid_stride_loops(self, fn: Function) -> list[tuple[Loop, float]]:
        """``(loop, confidence)`` for loops of ``fn`` that start at a thread-dependent index and
        advance by the grid size (0.7 when the step is ``gridDim.x`` alone)."""
        seeds = {name for name, value, _ in self.assignments(fn)
                 if "gridDim" in self.text_of(value) or
                 re.search(r"\.\s*size\s*\(\s*\)|num_threads", self.text_of(value))}
        grid_vars = self.derived(fn, seeds)
        tiv = self.thread_index_vars(fn)
        out = []
        for loop in self.loops_in(fn):
            steps = self._loop_steps(loop)
            if not any(self._mentions_grid_size(s, grid_vars) for s in steps):
                continue
            start = loop.node.child_by_field_name("initializer")
            updated = {self.text_of(s.parent.child_by_field_name("left")) for s in steps
                       if s.parent is not None and s.parent.type == "assignment_expression"}
            starts_at_thread = (start is not None and self.uses_thread_index(start)) or \
                (loop.var is not None and loop.var in tiv) or \
                (loop.node.type != "for_statement" and bool(updated & tiv))
            if not starts_at_thread:
                continue
            step_text = " ".join(self.text_of(s) for s in steps)
            out.append((loop, 0.7 if re.fullmatch(r"\s*gridDim\.[xyz]\s*", step_text) else 0.95))
        return out

    def _mentions_grid_size(self, node: Node | None, grid_vars: set[str]) -> bool:
        text = self.text_of(node) if node is not None else ""
        if "gridDim" in text or re.search(r"\.\s*size\s*\(\s*\)|num_threads\s*\(", text):
            return True
        return bool(self.identifiers(node) & grid_vars)

    def _loop_steps(self, loop: Loop) -> list[Node]:
        """Expressions added to the loop variable each iteration."""
        node = loop.node
        var = loop.var
        if node.type == "for_statement":
            upd = node.child_by_field_name("update")
            cands = [upd] if upd is not None else []
        else:
            cands = []
            cond = node.child_by_field_name("condition")
            names = self.identifiers(cond)
            if var:
                names = {var}
            body = node.child_by_field_name("body")
            for n in walk(body):
                if n.type in LOOP_TYPES and n is not node:
                    continue
                if n.type == "assignment_expression":
                    left = n.child_by_field_name("left")
                    if left is not None and self.text_of(left) in names:
                        cands.append(n)
        steps = []
        for c in cands:
            for n in walk(c):
                if n.type == "assignment_expression":
                    op = self.text_of(n.child_by_field_name("operator"))
                    right = n.child_by_field_name("right")
                    if op == "+=":
                        steps.append(right)
                    elif op == "=" and right is not None:
                        steps.append(right)
        return steps
