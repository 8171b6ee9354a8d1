"""Host-side facts the detectors share: host loops and the device work inside them, copies and
their direction, library calls, the variables that decide whether a loop goes on, per-iteration
round trips to the host, and launch configurations written as ``dim3``."""

from __future__ import annotations

import re
from functools import cached_property

from tree_sitter import Node

from strategylens.model.items import Call, Function, Launch, Loop
from strategylens.model.syntax import (call_args, enclosing_ifs, in_condition_part, in_lambda,
                                       innermost_loop, inside, line, runs_every_iteration, unparen,
                                       walk)

_LIBRARY_CATEGORIES = {"cublas", "cusparse", "cusolver", "cufft", "curand"}
_SETUP_WORDS = ("Create", "Destroy", "Set", "Get", "Plan", "plan", "bufferSize", "BufferSize",
                "Version", "Workspace", "workspace", "Estimat", "Attach", "Attribute",
                "preprocess", "Init", "Finalize", "Make")
_HOST_VISIBLE_ALLOCS = {"cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc"}
_THRUST_ALGORITHMS = {
    "sort", "sort_by_key", "stable_sort", "stable_sort_by_key", "reduce", "reduce_by_key",
    "inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "exclusive_scan_by_key",
    "transform_inclusive_scan", "transform_exclusive_scan", "transform_reduce", "inner_product",
    "copy_if", "remove_if", "remove_copy_if", "remove", "remove_copy", "unique", "unique_copy",
    "unique_by_key", "unique_by_key_copy", "partition", "partition_copy", "stable_partition",
    "count", "count_if", "min_element", "max_element", "minmax_element", "find", "find_if",
    "lower_bound", "upper_bound", "binary_search", "equal_range", "merge", "merge_by_key",
    "set_union", "set_intersection", "set_difference", "transform", "transform_if", "for_each",
    "for_each_n", "gather", "gather_if", "scatter", "scatter_if", "adjacent_difference",
    "all_of", "any_of", "none_of", "is_sorted", "mismatch", "equal", "replace_if", "tabulate",
}
THRUST_RETURNS_TO_HOST = {"reduce", "transform_reduce", "count", "count_if", "inner_product",
                          "all_of", "any_of", "none_of", "is_sorted", "equal", "copy_if",
                          "remove_if", "remove_copy_if", "remove", "remove_copy", "unique",
                          "unique_copy", "unique_by_key", "reduce_by_key", "partition",
                          "min_element", "max_element", "minmax_element", "find", "find_if",
                          "set_union", "set_intersection", "set_difference", "merge"}
HOST_SORTS = {"std::sort", "std::stable_sort", "qsort", "std::qsort", "std::nth_element",
              "std::partial_sort", "sort", "stable_sort"}
_COMPARATOR_THIRD = {"std::sort", "std::stable_sort", "sort", "stable_sort"}  # (first, last, cmp)


def library_call(call: Call, names: set[str]) -> bool:
    """A Thrust or CUB call whose unqualified name is one of ``names``."""
    if call.category not in ("thrust", "cub") and not call.name.startswith(("thrust::", "cub::")):
        return False
    return call.name.rsplit("::", 1)[-1] in names


def is_host_function(fn: Function | None) -> bool:
    """A function that runs on the host (not a kernel, not device-only)."""
    return fn is not None and not fn.is_kernel and (fn.is_host or not fn.is_device)


def is_library_compute(call: Call) -> bool:
    """A host call of a cuBLAS/cuSPARSE/cuSOLVER/cuFFT/cuRAND routine that computes (not a
    handle, plan, descriptor, stream or workspace-size call)."""
    if call.category not in _LIBRARY_CATEGORIES:
        return False
    name = call.name
    if call.category == "curand":
        return name.startswith("curandGenerate")
    if name.startswith("cufft"):
        return name.startswith(("cufftExec", "cufftXtExec"))
    return not any(w in name for w in _SETUP_WORDS)


def is_thrust_algorithm(call: Call) -> bool:
    """A Thrust device-wide algorithm name (not a container, pointer helper or plain copy)."""
    return call.category == "thrust" and call.unqualified in _THRUST_ALGORITHMS


def is_cub_device(call: Call) -> bool:
    """A CUB device-wide algorithm (``cub::Device*::...``), a static member of a ``Device*``
    class; a method of a CUB object (``allocator.DeviceAllocate``) is not one."""
    if call.category != "cub" or call.receiver is not None:
        return False
    parts = call.name.removeprefix("::").split("::")
    return any(p.startswith("Device") for p in parts[:-1])


def copy_direction(call: Call) -> str | None:
    """'d2h', 'h2d', 'd2d' or None for a copy call."""
    name = call.name
    if name in ("cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync"):
        return "d2h"
    if name in ("cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync"):
        return "h2d"
    if call.category not in ("copy", "copy_async") or name == "cudaMemPrefetchAsync":
        return None
    for a in call.args:
        if "DeviceToHost" in a:
            return "d2h"
        if "HostToDevice" in a:
            return "h2d"
        if "DeviceToDevice" in a:
            return "d2d"
    return None


def _split_args(text: str) -> list[str]:
    """Comma-separated arguments at the top level of ``text``."""
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


class HostFacts:
    """Queries over the host side of the program."""

    def _add_helper_launches(self) -> None:
        """A kernel of the file handed to a call from a header the file lacks
        (``linear_kernel(k<T>, 0, stream, n, ...)``, ``box.launch(ctx, k, ...)``) in host code
        is launched by that helper, with a configuration the helper chooses."""
        for c in self.calls:
            fn = self.function_of(c.function) if c.function else None
            if c.category is not None or fn is None or fn.is_kernel or fn.is_device or \
                    c.name in self.functions:
                continue
            for a in call_args(c.node):
                a = unparen(a)
                base = a.child_by_field_name("name") if a.type == "template_function" else a
                kname = self.text_of(base) if base is not None else ""
                k = self.function_of(kname) if base is not None and base.type == "identifier" \
                    else None
                if k is None or not k.is_kernel:
                    continue
                targs = [self.text_of(x) for x in
                         a.child_by_field_name("arguments").named_children] \
                    if a.type == "template_function" else []
                loops = [lp for lp in self.loops if lp.function == c.function and
                         inside(c.node, lp.node)]
                self.launches.append(Launch(kname, c.node, c.line, c.function, "", "", None, None,
                                            None, None, targs,
                                            max(loops, key=lambda lp: lp.depth, default=None),
                                            "helper"))
                break

    @cached_property
    def reachable_host_calls(self) -> list[Call]:
        """Calls in reachable host code of the solution (not in verification, set-up or timing
        functions: :mod:`strategylens.model.roles`); do not modify the list."""
        out = []
        for c in self.calls:
            if c.function is None or not self.is_reachable(c.node):
                continue
            if is_host_function(self.function_of(c.function)) and self.solution_code(c.node):
                out.append(c)
        return out

    def host_loops(self) -> list[Loop]:
        """Reachable loops in the solution's host code, timing and warm-up loops left out."""
        out = []
        for lp in self.loops:
            fn = self.function_of(lp.function) if lp.function else None
            if is_host_function(fn) and self.is_reachable(lp.node) and \
                    self.solution_code(lp.node) and not self.is_timing_loop(lp):
                out.append(lp)
        return out

    def copy_endpoints(self, call: Call) -> tuple[str | None, str | None]:
        """(destination, source) variables of a copy call."""
        args = call_args(call.node)
        if call.name.startswith("cudaMemcpy2D"):
            dst = self.root_identifier(args[0]) if args else None
            src = self.root_identifier(args[2]) if len(args) > 2 else None
            return dst, src
        dst = self.root_identifier(args[0]) if args else None
        src = self.root_identifier(args[1]) if len(args) > 1 else None
        return dst, src

    def sort_orders_device_work(self, call: Call) -> bool:
        """A host sort of an index array by a computed cost (its comparator indexes other arrays:
        ``[&](int x, int y) { return len[x] > len[y]; }``) whose result is copied to the device and
        handed to a kernel: it orders the device's work, it does not compute the answer."""
        args = call_args(call.node)
        if call.name not in _COMPARATOR_THIRD or len(args) < 3:
            return False
        order = self.root_identifier(args[0])
        keyed = {self.root_identifier(n) for n in walk(args[2])
                 if n.type == "subscript_expression"} - {None, order}
        if order is None or not keyed:
            return False
        fn = self.function_of(call.function) if call.function else None
        uploaded = {self.copy_endpoints(c)[0] for c in self.calls_in(fn)
                    if c.line > call.line and copy_direction(c) == "h2d"
                    and self.copy_endpoints(c)[1] == order} - {None}
        return any(la.caller == call.function and la.line > call.line and
                   any(self.root_identifier(a) in uploaded for a in call_args(la.node))
                   for la in self.launches)

    def all_but_last(self, loop: Loop, node: Node) -> bool:
        """``node`` runs in every iteration of ``loop`` or every one but the last: each ``if`` on the
        way tests only the loop's counters and the names of its own bound (``if (s + 1 < steps)``),
        and ``node`` is in its then-branch."""
        header = loop.node.child_by_field_name("condition")
        allowed = self.loop_var_names(loop) | (self.identifiers(header) if header else set())
        for i in enclosing_ifs(loop.node, node):
            if in_condition_part(i, node):
                continue
            cond = i.child_by_field_name("condition")
            then = i.child_by_field_name("consequence")
            if cond is None or then is None or not inside(node, then) or \
                    not self.identifiers(cond) or not self.identifiers(cond) <= allowed:
                return False
        return True

    def modulo_guard(self, loop: Loop, node: Node) -> Node | None:
        """The ``if`` between ``loop`` and ``node`` whose condition takes the loop variable modulo
        a number (a check every K iterations), if any."""
        for i in enclosing_ifs(loop.node, node):
            cond = i.child_by_field_name("condition")
            if cond is None:
                continue
            for n in walk(cond):
                if n.type == "binary_expression" and self.text_of(
                        n.child_by_field_name("operator")) in ("%", "&"):
                    if loop.var is None or loop.var in self.identifiers(n):
                        return i
        return None

    def loop_var_names(self, loop: Loop) -> set[str]:
        """The loop variable plus counters updated in the body (``++level``)."""
        names = {loop.var} if loop.var else set()
        body = loop.node.child_by_field_name("body")
        if body is not None:
            for n in walk(body):
                if n.type == "update_expression":
                    arg = n.child_by_field_name("argument")
                    if arg is not None and arg.type == "identifier":
                        names.add(self.text_of(arg))
        return names

    def continuation_vars(self, loop: Loop) -> set[str]:
        """Variables that decide whether ``loop`` goes on: those in its condition and in the
        conditions of ``if`` statements that break out of it, followed through assignments made
        in the body (``converged = delta < tol``)."""
        names: set[str] = set()
        cond = loop.node.child_by_field_name("condition")
        names |= self.identifiers(cond)
        for n in walk(loop.node):
            if n.type not in ("break_statement", "return_statement"):
                continue
            if n.type == "break_statement" and innermost_loop(n) != loop.node:
                continue
            for i in enclosing_ifs(loop.node, n):
                if not in_condition_part(i, n):
                    names |= self.identifiers(i.child_by_field_name("condition"))
        body = loop.node.child_by_field_name("body") or loop.node
        for _ in range(2):
            for n in walk(body):
                if n.type == "assignment_expression":
                    left = self.root_identifier(n.child_by_field_name("left"))
                    if left in names:
                        names |= self.identifiers(n.child_by_field_name("right"))
                elif n.type == "init_declarator":
                    left = self.root_identifier(n.child_by_field_name("declarator"))
                    if left in names:
                        names |= self.identifiers(n.child_by_field_name("value"))
        return names

    def in_deciding_condition(self, loop: Loop, node: Node) -> bool:
        """``node`` is in ``loop``'s own condition, or in the condition of an ``if`` in the body
        that breaks out of (or returns from) the loop."""
        cond = loop.node.child_by_field_name("condition")
        if cond is not None and inside(node, cond):
            return True
        for i in enclosing_ifs(loop.node, node):
            if i.type != "if_statement" or not in_condition_part(i, node):
                continue
            for d in walk(i):
                if d.type == "return_statement" or (
                        d.type == "break_statement" and innermost_loop(d) == loop.node):
                    return True
        return False

    def device_work_in(self, loop: Loop) -> list:
        """Reachable launches, library compute calls and calls of host functions that launch
        (:attr:`launching_functions`) inside ``loop``."""
        items: list = [la for la in self.launches_of() if inside(la.node, loop.node)]
        for c in self.reachable_host_calls:
            if inside(c.node, loop.node) and (is_library_compute(c) or is_thrust_algorithm(c)
                                              or is_cub_device(c)
                                              or (c.name in self.launching_functions
                                                  and not in_lambda(c.node, loop.node))):
                items.append(c)
        return items

    def round_trips(self, loop: Loop) -> list[tuple[int, float, str]]:
        """AP-02 evidence in one host loop of launches: (line, confidence, note) for each transfer
        or synchronisation that runs in every iteration and decides whether the loop continues (or
        moves the same device buffer to the host and back)."""
        if not self.device_work_in(loop):
            return []
        cont = self.continuation_vars(loop)
        calls = [c for c in self.reachable_host_calls if inside(c.node, loop.node)]
        out: list[tuple[int, float, str]] = []
        syncs: list[tuple[int, float, str]] = []
        h2d_pairs = {self.copy_endpoints(c) for c in calls  # back up for the next iteration
                     if copy_direction(c) == "h2d" and self.all_but_last(loop, c.node)}
        h2d_sources = {src for _, src in h2d_pairs}
        counters = self.loop_var_names(loop)
        owner = self.function_of(loop.function) if loop.function else None
        chunks = counters | (self.derived(owner, counters, index_only=True) if owner else set())
        launched = set()  # variables passed to a kernel launched in this loop
        for la in self.launches:
            if inside(la.node, loop.node):
                for a in call_args(la.node):
                    launched |= self.identifiers(a)
        host_visible = set()
        for c in self.reachable_host_calls:
            if c.name in _HOST_VISIBLE_ALLOCS:
                args = call_args(c.node)
                if args:
                    host_visible.add(self.root_identifier(args[0]))
        for c in calls:
            if not runs_every_iteration(loop, c.node):
                continue
            direction = copy_direction(c)
            if direction == "d2h":
                dst, src = self.copy_endpoints(c)
                if dst in cont:
                    out.append((c.line, 0.9, f"copies '{dst}' to the host to test the loop"))
                elif (src, dst) in h2d_pairs and not any(
                        self.identifiers(a) & chunks for a in call_args(c.node)[:2]):
                    # (a chunk loop moves a different slice each iteration: &a[offset])
                    out.append((c.line, 0.75, f"copies '{src}' to the host and back every iteration"))
                elif self.feeds(loop, dst, launched) and not any(self.identifiers(a) & counters
                                                                 for a in call_args(c.node)[:2]):
                    out.append((c.line, 0.75, f"'{dst}' comes to the host and sets the next launch"))
                elif dst in h2d_sources and not any(self.identifiers(a) & counters
                                                    for a in call_args(c.node)):
                    # the whole state goes through host memory each iteration (not a chunk loop)
                    out.append((c.line, 0.75, f"state goes to the host ('{dst}') and back every "
                                              "iteration"))
            elif c.category == "thrust" and c.unqualified in THRUST_RETURNS_TO_HOST:
                var = self.assigned_variable(c.node)
                if (var is not None and var in cont) or self.in_deciding_condition(loop, c.node):
                    out.append((c.line, 0.85, f"thrust::{c.unqualified} returns a value to the host "
                                              "that decides the loop"))
                elif var is not None and self.feeds(loop, var, launched):
                    out.append((c.line, 0.75, f"thrust::{c.unqualified} returns a value to the host "
                                              "that the next launch needs"))
            elif c.category == "cublas" and any(k in c.name.lower() for k in ("dot", "nrm2", "asum",
                                                                              "amax", "amin")):
                args = call_args(c.node)
                if args and self.root_identifier(args[-1]) in cont:
                    out.append((c.line, 0.8, "cuBLAS result read on the host to test the loop"))
            elif c.category in ("device_sync", "sync") and cont & host_visible:
                syncs.append((c.line, 0.8, "synchronises to read a host-visible flag"))
        return out or syncs  # a copy already marks the round trip; its synchronisation adds nothing

    @cached_property
    def colour_launches(self) -> list[tuple]:
        """Pairs of launches ``(a, b)`` of one kernel from one function that differ in a colour
        (a template or plain argument ``true``/``false`` or ``0``/``1``) and swap two array
        arguments, where the kernel tests an index's parity (``i % 2``, ``i & 1``): red-black
        updates of a grid kept as two colour arrays, each colour updated from the other."""
        colours = ({"true", "false"}, {"0", "1"})
        out, launches = [], self.launches_of()
        for i, a in enumerate(launches):
            k = self.function_of(a.kernel)
            if k is None or k.body is None or not self._tests_parity(k):
                continue
            for b in launches[i + 1:]:
                if b.kernel != a.kernel or b.caller != a.caller:
                    continue
                x, y = self.launch_arg_texts(a), self.launch_arg_texts(b)
                ta, tb = list(a.template_args or []), list(b.template_args or [])
                if len(x) != len(y) or len(ta) != len(tb):
                    continue
                pairs = list(zip(ta + x, tb + y, strict=True))
                if any({p.strip(), q.strip()} in colours for p, q in pairs) and any(
                        x[m] != x[j] and x[m] == y[j] and x[j] == y[m]
                        for m in range(len(x)) for j in range(m + 1, len(x))):
                    out.append((a, b))
        return out

    def _tests_parity(self, k: Function) -> bool:
        for b in self.fn_nodes(k, "binary_expression"):
            op = self.text_of(b.child_by_field_name("operator"))
            if op in ("%", "&") and self.eval_int(b.child_by_field_name("right"), k) == \
                    (2 if op == "%" else 1):
                return True
        return False

    def launch_arg_texts(self, la) -> list[str]:
        args = la.node.child_by_field_name("arguments")
        return [self.text_of(a) for a in args.named_children] if args is not None else []

    def dim3_args(self, fn, expr: str) -> list[str] | None:
        """Components of a dim3 launch dimension: ``dim3(a, b)`` inline, or a ``dim3 name(a, b)`` /
        ``dim3 name = dim3(a, b)`` / ``dim3 name{a, b}`` / ``dim3 name = {a, b}`` declaration in
        ``fn``; None when the expression is not a dim3."""
        found = self.dim3_decl(fn, expr)
        return found[0] if found else None

    def _dim3_init(self, name: str, fn: Function, at: Node | None = None
                   ) -> tuple[int, ...] | None:
        """Value of a ``dim3 name(a, b)`` declared in ``fn``; with ``at`` (a launch's
        argument), the last such declaration before it (branches may declare it again)."""
        found = None
        for x in walk(fn.body) if fn.body is not None else ():
            if at is not None and x.start_byte > at.start_byte:
                break
            if x.type != "declaration" or self.text_of(x.child_by_field_name("type")) != "dim3":
                continue
            for d in x.children_by_field_name("declarator"):
                if d.type == "function_declarator" and self.text_of(
                        d.child_by_field_name("declarator")) == name:
                    # `dim3 block(TILE, TILE);` parses as a function declaration
                    ps = d.child_by_field_name("parameters")
                    vals = [self.eval_int(self.text_of(a), fn)
                            for a in (ps.named_children if ps else [])]
                    found = tuple(vals) if vals and None not in vals else None
                elif d.type == "init_declarator" and self.text_of(
                        d.child_by_field_name("declarator")) == name:
                    v = d.child_by_field_name("value")
                    if v is not None and v.type in ("argument_list", "initializer_list"):
                        vals = [self.eval_int(a, fn) for a in v.named_children]
                        found = tuple(vals) if vals and None not in vals else None
                    else:
                        found = self._dim_value(v, fn) if v is not None else None
                else:
                    continue
                if at is None:
                    return found
        return found

    def dim3_decl(self, fn, expr: str, at: Node | None = None
                  ) -> tuple[list[str], int | None] | None:
        """Like :func:`dim3_args`, with the line of the declaration (None for an inline dim3);
        with ``at`` (a launch), the last declaration of the name before it."""
        e = expr.strip()
        m = re.fullmatch(r"dim3\s*[\({](.*)[\)}]", e, re.S)
        if m:
            return _split_args(m.group(1)), None
        if not re.fullmatch(r"[A-Za-z_]\w*", e) or fn is None or fn.body is None:
            return None
        found = None
        for n in walk(fn.body):
            if n.type != "declaration":
                continue
            ty = self.text_of(n.child_by_field_name("type"))
            auto = ty.split()[-1:] == ["auto"]  # auto grid = dim3(a, b)
            if "dim3" not in ty and not auto:
                continue
            if at is not None and n.start_byte > at.start_byte:
                break
            for d in n.named_children:
                t = self.text_of(d)
                dim3 = r"dim3\s*" if auto else r"(?:dim3\s*)?"
                m = re.fullmatch(re.escape(e) + r"\s*(?:=\s*" + dim3 + r")?[\({](.*)[\)}]", t,
                                 re.S)
                if auto and not m:
                    continue
                if m or t == e:
                    found = (_split_args(m.group(1)) if m else ["1"]), line(d)
                    if at is None:
                        return found
        return found
