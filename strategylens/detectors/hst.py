"""Detectors for the HST family (host-side coordination), HST-01 .. HST-07.

They read the host side of the program model: allocation, copy, stream, graph and library calls,
host loops and the launches inside them. The helpers at the top (loops of launches, copy
directions, the variables that decide whether a loop continues) are shared with
:mod:`strategylens.detectors.antipatterns`, whose AP-02 is the other side of HST-04's boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tree_sitter import Node

from strategylens.detectors import Detector, Finding
from strategylens.model import Call, Function, Launch, Loop, ProgramModel
from strategylens.model import walk as iter_nodes

# ---------------------------------------------------------------------------------------------
# shared helpers

_LIBRARY_CATEGORIES = {"cublas", "cusparse", "cusolver", "cufft", "curand"}
_SETUP_WORDS = ("Create", "Destroy", "Set", "Get", "Plan", "plan", "bufferSize", "BufferSize",
                "Version", "Workspace", "workspace", "Estimat", "Attach", "Attribute",
                "preprocess", "Init", "Finalize", "Make")
_DEVICE_ALLOCS = {"cudaMalloc", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocAsync",
                  "cudaMallocFromPoolAsync"}
_HOST_VISIBLE_ALLOCS = {"cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc"}
_COPY_CATEGORIES = {"copy", "copy_async", "copy_symbol"}
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
_THRUST_LIGHT = {"transform", "for_each", "for_each_n", "gather", "scatter", "tabulate",
                 "replace_if", "transform_if", "gather_if", "scatter_if"}
# thrust calls that hand a value back to the host (an implicit device-to-host copy)
THRUST_RETURNS_TO_HOST = {"reduce", "transform_reduce", "count", "count_if", "inner_product",
                          "all_of", "any_of", "none_of", "is_sorted", "equal", "copy_if",
                          "remove_if", "remove_copy_if", "remove", "remove_copy", "unique",
                          "unique_copy", "unique_by_key", "reduce_by_key", "partition",
                          "min_element", "max_element", "minmax_element", "find", "find_if",
                          "set_union", "set_intersection", "set_difference", "merge"}
_HOST_POLICIES = ("thrust::host", "thrust::seq", "thrust::cpp::par", "thrust::omp::par",
                  "thrust::tbb::par", "std::execution")
_CASTS = {"reinterpret_cast", "static_cast", "const_cast", "dynamic_cast"}
_LOOP_NODES = {"for_statement", "while_statement", "do_statement", "for_range_loop"}


def line(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return node.start_point[0] + 1


def inside(outer: Node, inner: Node) -> bool:
    """Whether ``inner`` lies within ``outer`` (byte ranges)."""
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def descendants(node: Node) -> Iterable[Node]:
    """All nodes under ``node``, itself included, in source order (comments and strings not
    entered)."""
    return iter_nodes(node)


def identifiers(model: ProgramModel, node: Node | None) -> set[str]:
    """Names of the identifiers under ``node``."""
    if node is None:
        return set()
    return {model.text_of(n) for n in descendants(node) if n.type == "identifier"}


def root_identifier(model: ProgramModel, node: Node | None) -> str | None:
    """The variable an argument or expression is about: ``&d_x``, ``(void**)&d_x``,
    ``reinterpret_cast<void**>(&d_x)``, ``d_x + off``, ``d_x[i]``, ``*flag`` and ``s.data()``
    all give the leftmost variable (types and cast names are skipped)."""
    if node is None:
        return None
    if node.type == "identifier":
        return model.text_of(node)
    if node.type in ("type_descriptor", "template_argument_list", "primitive_type",
                     "type_identifier", "sizeof_expression", "string_literal"):
        return None
    if node.type == "call_expression":
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        fname = model.text_of(func.child_by_field_name("name")) if func is not None and \
            func.type == "template_function" else model.text_of(func)
        if fname in _CASTS and args is not None and args.named_children:
            return root_identifier(model, args.named_children[0])
        if func is not None and func.type == "field_expression":
            return root_identifier(model, func.child_by_field_name("argument"))
        return None
    for child in node.named_children:
        found = root_identifier(model, child)
        if found is not None:
            return found
    return None


def call_args(call: Call) -> list[Node]:
    """Argument nodes of a call expression."""
    args = call.node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def launch_args(launch: Launch) -> list[Node]:
    """Kernel argument nodes of a launch (chevron form)."""
    args = launch.node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def is_host_function(fn: Function | None) -> bool:
    """A function that runs on the host (not a kernel, not device-only)."""
    return fn is not None and not fn.is_kernel and (fn.is_host or not fn.is_device)


def host_loops(model: ProgramModel) -> list[Loop]:
    """Reachable loops in host functions."""
    out = []
    for lp in model.loops:
        fn = model.function_of(lp.function) if lp.function else None
        if is_host_function(fn) and model.is_reachable(lp.node):
            out.append(lp)
    return out


def reachable_launches(model: ProgramModel) -> list[Launch]:
    """Launches on a reachable path."""
    return [la for la in model.launches if model.is_reachable(la.node)]


def reachable_host_calls(model: ProgramModel) -> list[Call]:
    """Calls in reachable host code (computed once per model; do not modify the list)."""
    cached = model.__dict__.get("_reachable_host_calls")
    if cached is not None:
        return cached
    out = []
    for c in model.calls:
        if c.function is None or not model.is_reachable(c.node):
            continue
        if is_host_function(model.function_of(c.function)):
            out.append(c)
    model.__dict__["_reachable_host_calls"] = out
    return out


def base_name(call: Call) -> str:
    """Callee name without namespaces or qualifiers (``cub::DeviceScan::ExclusiveSum`` ->
    ``ExclusiveSum``)."""
    return call.name.rsplit("::", 1)[-1]


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


def thrust_host_side(model: ProgramModel, call: Call, fn: Function | None) -> bool:
    """Whether a Thrust call runs on the host: a host/sequential policy, or iterators of a
    host_vector, std::vector or plain array."""
    args = call_args(call)
    if not args:
        return True
    first = model.text_of(args[0]).replace(" ", "")
    if first.startswith(_HOST_POLICIES):
        return True
    if first.startswith(("thrust::device", "thrust::cuda")):
        return False
    name = root_identifier(model, args[0])
    if name is None or fn is None or fn.body is None:
        return False
    decl_type = declared_type(model, fn, name)
    if decl_type is None:
        return False
    return any(k in decl_type for k in ("host_vector", "std::vector", "std::array"))


def declared_type(model: ProgramModel, fn: Function, name: str) -> str | None:
    """Type text of the local declaration or parameter ``name`` in ``fn`` (arrays get ``[]``)."""
    for p in fn.params:
        if p.name == name:
            return p.type_text
    for n in descendants(fn.body):
        if n.type != "declaration":
            continue
        for d in n.children_by_field_name("declarator"):
            target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            core = target
            while core is not None and core.type in ("pointer_declarator", "array_declarator",
                                                     "reference_declarator"):
                core = core.child_by_field_name("declarator") or (
                    core.named_children[-1] if core.named_children else None)
            if core is not None and model.text_of(core) == name:
                ty = model.text_of(n.child_by_field_name("type"))
                if target is not None and target.type == "array_declarator":
                    ty += "[]"
                if target is not None and target.type == "pointer_declarator":
                    ty += "*"
                return ty
    return None


def is_thrust_algorithm(call: Call) -> bool:
    """A Thrust device-wide algorithm name (not a container, pointer helper or plain copy)."""
    return call.category == "thrust" and base_name(call) in _THRUST_ALGORITHMS


def is_cub_device(call: Call) -> bool:
    """A CUB device-wide algorithm (``cub::Device*::...``)."""
    return call.category == "cub" and "::Device" in "::" + call.name.removeprefix("::")


def copy_direction(model: ProgramModel, call: Call) -> str | None:
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


def copy_endpoints(model: ProgramModel, call: Call) -> tuple[str | None, str | None]:
    """(destination, source) variables of a copy call."""
    args = call_args(call)
    if call.name.startswith("cudaMemcpy2D"):
        dst = root_identifier(model, args[0]) if args else None
        src = root_identifier(model, args[2]) if len(args) > 2 else None
        return dst, src
    dst = root_identifier(model, args[0]) if args else None
    src = root_identifier(model, args[1]) if len(args) > 1 else None
    return dst, src


HOST_SORTS = {"std::sort", "std::stable_sort", "qsort", "std::qsort", "std::nth_element",
              "std::partial_sort", "sort", "stable_sort"}
_COMPARATOR_THIRD = {"std::sort", "std::stable_sort", "sort", "stable_sort"}  # (first, last, cmp)


def sort_orders_device_work(model: ProgramModel, call: Call) -> bool:
    """A host sort of an index array by a computed cost (its comparator indexes other arrays:
    ``[&](int x, int y) { return len[x] > len[y]; }``) whose result is copied to the device and
    handed to a kernel: it orders the device's work, it does not compute the answer."""
    args = call_args(call)
    if call.name not in _COMPARATOR_THIRD or len(args) < 3:
        return False
    order = root_identifier(model, args[0])
    keyed = {root_identifier(model, n) for n in descendants(args[2])
             if n.type == "subscript_expression"} - {None, order}
    if order is None or not keyed:
        return False
    fn = model.function_of(call.function) if call.function else None
    uploaded = {copy_endpoints(model, c)[0] for c in model.calls_in(fn)
                if c.line > call.line and copy_direction(model, c) == "h2d"
                and copy_endpoints(model, c)[1] == order} - {None}
    return any(la.caller == call.function and la.line > call.line and
               any(root_identifier(model, a) in uploaded for a in launch_args(la))
               for la in model.launches)


def enclosing_ifs(stop: Node, node: Node) -> list[Node]:
    """``if`` statements (and ternaries) between ``node`` and its ancestor ``stop``."""
    out = []
    n = node.parent
    while n is not None and n != stop and inside(stop, n):
        if n.type in ("if_statement", "conditional_expression"):
            out.append(n)
        n = n.parent
    return out


def in_condition_part(if_node: Node, node: Node) -> bool:
    """Whether ``node`` sits in the condition of ``if_node`` rather than in a branch."""
    cond = if_node.child_by_field_name("condition")
    return cond is not None and inside(cond, node)


def runs_every_iteration(loop: Loop, node: Node) -> bool:
    """``node`` is in ``loop``'s body outside any ``if``/ternary branch of that body."""
    return not [i for i in enclosing_ifs(loop.node, node) if not in_condition_part(i, node)]


def all_but_last(model: ProgramModel, loop: Loop, node: Node) -> bool:
    """``node`` runs in every iteration of ``loop`` or every one but the last: each ``if`` on the
    way tests only the loop's counters and the names of its own bound (``if (s + 1 < steps)``),
    and ``node`` is in its then-branch."""
    header = loop.node.child_by_field_name("condition")
    allowed = loop_var_names(model, loop) | (identifiers(model, header) if header else set())
    for i in enclosing_ifs(loop.node, node):
        if in_condition_part(i, node):
            continue
        cond = i.child_by_field_name("condition")
        then = i.child_by_field_name("consequence")
        if cond is None or then is None or not inside(then, node) or \
                not identifiers(model, cond) or not identifiers(model, cond) <= allowed:
            return False
    return True


def modulo_guard(model: ProgramModel, loop: Loop, node: Node) -> Node | None:
    """The ``if`` between ``loop`` and ``node`` whose condition takes the loop variable modulo
    a number (a check every K iterations), if any."""
    for i in enclosing_ifs(loop.node, node):
        cond = i.child_by_field_name("condition")
        if cond is None:
            continue
        for n in descendants(cond):
            if n.type == "binary_expression" and model.text_of(
                    n.child_by_field_name("operator")) in ("%", "&"):
                if loop.var is None or loop.var in identifiers(model, n):
                    return i
    return None


def loop_var_names(model: ProgramModel, loop: Loop) -> set[str]:
    """The loop variable plus counters updated in the body (``++level``)."""
    names = {loop.var} if loop.var else set()
    body = loop.node.child_by_field_name("body")
    if body is not None:
        for n in descendants(body):
            if n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    names.add(model.text_of(arg))
    return names


def continuation_vars(model: ProgramModel, loop: Loop) -> set[str]:
    """Variables that decide whether ``loop`` goes on: those in its condition and in the
    conditions of ``if`` statements that break out of it, followed through assignments made
    in the body (``converged = delta < tol``)."""
    names: set[str] = set()
    cond = loop.node.child_by_field_name("condition")
    names |= identifiers(model, cond)
    for n in descendants(loop.node):
        if n.type not in ("break_statement", "return_statement"):
            continue
        if n.type == "break_statement" and innermost_loop(n) != loop.node:
            continue
        for i in enclosing_ifs(loop.node, n):
            if not in_condition_part(i, n):
                names |= identifiers(model, i.child_by_field_name("condition"))
    body = loop.node.child_by_field_name("body") or loop.node
    for _ in range(2):
        for n in descendants(body):
            if n.type == "assignment_expression":
                left = root_identifier(model, n.child_by_field_name("left"))
                if left in names:
                    names |= identifiers(model, n.child_by_field_name("right"))
            elif n.type == "init_declarator":
                left = root_identifier(model, n.child_by_field_name("declarator"))
                if left in names:
                    names |= identifiers(model, n.child_by_field_name("value"))
    return names


def in_deciding_condition(model: ProgramModel, loop: Loop, node: Node) -> bool:
    """``node`` is in ``loop``'s own condition, or in the condition of an ``if`` in the body
    that breaks out of (or returns from) the loop."""
    cond = loop.node.child_by_field_name("condition")
    if cond is not None and inside(cond, node):
        return True
    for i in enclosing_ifs(loop.node, node):
        if i.type != "if_statement" or not in_condition_part(i, node):
            continue
        for d in descendants(i):
            if d.type == "return_statement" or (
                    d.type == "break_statement" and innermost_loop(d) == loop.node):
                return True
    return False


def innermost_loop(node: Node) -> Node | None:
    """The nearest enclosing loop (or switch, for ``break``) of ``node``."""
    n = node.parent
    while n is not None:
        if n.type in _LOOP_NODES or n.type == "switch_statement":
            return n
        n = n.parent
    return None


def assigned_variable(model: ProgramModel, node: Node) -> str | None:
    """The variable that receives the value of expression ``node`` (``x = f()``, ``T x = f()``,
    ``x += f()``)."""
    n = node.parent
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.parent
    if n is None:
        return None
    if n.type == "init_declarator":
        return root_identifier(model, n.child_by_field_name("declarator"))
    if n.type == "assignment_expression":
        return root_identifier(model, n.child_by_field_name("left"))
    return None


def device_work_in(model: ProgramModel, loop: Loop) -> list:
    """Reachable launches and library compute calls inside ``loop``."""
    items: list = [la for la in reachable_launches(model) if inside(loop.node, la.node)]
    for c in reachable_host_calls(model):
        if inside(loop.node, c.node) and (is_library_compute(c) or is_thrust_algorithm(c)
                                          or is_cub_device(c)):
            items.append(c)
    return items


def round_trips(model: ProgramModel, loop: Loop) -> list[tuple[int, float, str]]:
    """AP-02 evidence in one host loop of launches: (line, confidence, note) for each transfer
    or synchronisation that runs in every iteration and decides whether the loop continues (or
    moves the same device buffer to the host and back)."""
    if not device_work_in(model, loop):
        return []
    cont = continuation_vars(model, loop)
    calls = [c for c in reachable_host_calls(model) if inside(loop.node, c.node)]
    out: list[tuple[int, float, str]] = []
    syncs: list[tuple[int, float, str]] = []
    h2d_pairs = {copy_endpoints(model, c) for c in calls  # back up for the next iteration
                 if copy_direction(model, c) == "h2d" and all_but_last(model, loop, c.node)}
    h2d_sources = {src for _, src in h2d_pairs}
    counters = loop_var_names(model, loop)
    launched = set()  # variables passed to a kernel launched in this loop
    for la in model.launches:
        if inside(loop.node, la.node):
            for a in launch_args(la):
                launched |= identifiers(model, a)
    host_visible = set()
    for c in reachable_host_calls(model):
        if c.name in _HOST_VISIBLE_ALLOCS:
            args = call_args(c)
            if args:
                host_visible.add(root_identifier(model, args[0]))
    for c in calls:
        if not runs_every_iteration(loop, c.node):
            continue
        direction = copy_direction(model, c)
        if direction == "d2h":
            dst, src = copy_endpoints(model, c)
            if dst in cont:
                out.append((c.line, 0.9, f"copies '{dst}' to the host to test the loop"))
            elif (src, dst) in h2d_pairs:
                out.append((c.line, 0.75, f"copies '{src}' to the host and back every iteration"))
            elif _feeds(model, loop, dst, launched) and not any(identifiers(model, a) & counters
                                                             for a in call_args(c)[:2]):
                out.append((c.line, 0.75, f"'{dst}' comes to the host and sets the next launch"))
            elif dst in h2d_sources and not any(identifiers(model, a) & counters
                                                for a in call_args(c)):
                # the whole state goes through host memory each iteration (not a chunk loop)
                out.append((c.line, 0.75, f"state goes to the host ('{dst}') and back every "
                                          "iteration"))
        elif c.category == "thrust" and base_name(c) in THRUST_RETURNS_TO_HOST:
            var = assigned_variable(model, c.node)
            if (var is not None and var in cont) or in_deciding_condition(model, loop, c.node):
                out.append((c.line, 0.85, f"thrust::{base_name(c)} returns a value to the host "
                                          "that decides the loop"))
            elif var is not None and _feeds(model, loop, var, launched):
                out.append((c.line, 0.75, f"thrust::{base_name(c)} returns a value to the host "
                                          "that the next launch needs"))
        elif c.category == "cublas" and any(k in c.name.lower() for k in ("dot", "nrm2", "asum",
                                                                          "amax", "amin")):
            args = call_args(c)
            if args and root_identifier(model, args[-1]) in cont:
                out.append((c.line, 0.8, "cuBLAS result read on the host to test the loop"))
        elif c.category in ("device_sync", "sync") and cont & host_visible:
            syncs.append((c.line, 0.8, "synchronises to read a host-visible flag"))
    return out or syncs  # a copy already marks the round trip; its synchronisation adds nothing


def _feeds(model: ProgramModel, loop: Loop, var: str, targets: set[str]) -> bool:
    """Whether host variable ``var`` reaches one of ``targets`` inside ``loop``, directly or
    through locals assigned from it (``inv = 1 / sqrtf(sq)``)."""
    flows = _local_flows(model, loop.node)
    reach, frontier = {var}, [var]
    while frontier:
        name = frontier.pop()
        for target, right in flows:
            if target not in reach and name in identifiers(model, right):
                reach.add(target)
                frontier.append(target)
    return bool(reach & targets)


def _local_flows(model: ProgramModel, node: Node) -> list[tuple[str, Node]]:
    """``(variable, value)`` for every initialiser and assignment under ``node``."""
    out = []
    for n in descendants(node):
        if n.type == "init_declarator":
            left, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        elif n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        else:
            continue
        target = root_identifier(model, left) if left is not None else None
        if target and right is not None:
            out.append((target, right))
    return out


def _aliases(model: ProgramModel, fn: Function | None, name: str) -> set[str]:
    """``name`` and the locals of ``fn`` that copy it (``float* src = d_a;``), to a fixpoint."""
    names = {name}
    if fn is None or fn.body is None:
        return names
    pairs = [(target, model.text_of(right)) for target, right in _local_flows(model, fn.body)
             if right.type == "identifier"]
    changed = True
    while changed:
        changed = False
        for target, source in pairs:
            if source in names and target not in names:
                names.add(target)
                changed = True
    return names


def stage_loop(model: ProgramModel, loop: Loop) -> bool:
    """A while/do loop whose controlling variable shrinks or grows geometrically in the body
    (``blocks = (blocks + B - 1) / B``, ``n >>= 1``): a multi-pass reduction or scan, not an
    iteration of one state."""
    cond = loop.node.child_by_field_name("condition")
    names = identifiers(model, cond)
    body = loop.node.child_by_field_name("body")
    if not names or body is None:
        return False
    geometric = ("/", ">>", "*", "<<")

    def has_geometric(node: Node | None, depth: int = 0) -> bool:
        if node is None:
            return False
        for n in descendants(node):
            if n.type == "binary_expression" and model.text_of(
                    n.child_by_field_name("operator")) in geometric:
                return True
        if depth < 1:
            for d in descendants(body):
                if d.type == "init_declarator" and root_identifier(
                        model, d.child_by_field_name("declarator")) in identifiers(model, node):
                    if has_geometric(d.child_by_field_name("value"), depth + 1):
                        return True
        return False

    for n in descendants(body):
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


def outermost(loops: Iterable[Loop]) -> list[Loop]:
    """Loops not nested in another loop of the same collection."""
    loops = list(loops)
    return [lp for lp in loops
            if not any(o is not lp and inside(o.node, lp.node) for o in loops)]


class LineDetector(Detector):
    """A detector whose :meth:`find` may report a line more than once (several calls or
    variables on one line); :meth:`detect` keeps one finding per line span, the surest."""

    def detect(self, model: ProgramModel) -> list[Finding]:
        best: dict[tuple[int, int], Finding] = {}
        for f in self.find(model):
            key = (f.line_start, f.line_end)
            if key not in best or f.confidence > best[key].confidence:
                best[key] = f
        return sorted(best.values(), key=lambda f: f.line_start)

    def find(self, model: ProgramModel) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# HST-01

class DeviceBufferReuse(LineDetector):
    """HST-01: a device buffer allocated once per call, outside a host loop, and used by the
    launches or library calls inside that loop; or stream-ordered pool allocation in a loop.
    Buffers with static storage are cross-call state (AP-04) and are skipped."""

    id = "HST-01"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        static_names = {v.name for v in model.vars if v.space in ("static", "device")}
        loops = [lp for lp in host_loops(model) if device_work_in(model, lp)]
        seen: set[int] = set()
        for c in reachable_host_calls(model):
            if c.name not in _DEVICE_ALLOCS:
                continue
            args = call_args(c)
            name = root_identifier(model, args[0]) if args else None
            if name is None or name in static_names or c.line in seen:
                continue
            enclosing = [lp for lp in loops if inside(lp.node, c.node)]
            if c.name in ("cudaMallocAsync", "cudaMallocFromPoolAsync"):
                if enclosing:
                    seen.add(c.line)
                    yield Finding(c.line, c.line, 0.8,
                                  note=f"'{name}' comes from a stream-ordered pool in a loop")
                    continue
            elif enclosing:
                continue  # allocation per iteration
            fn = model.function_of(c.function)
            hit = None
            for lp in loops:
                if lp.function != c.function or lp.node.start_byte < c.node.end_byte:
                    continue
                if self._used_in(model, lp, _aliases(model, fn, name)):
                    hit = lp
                    break
            if hit is None and fn is not None:
                hit = self._reused_by_callee(model, fn, c, name, loops)
            if hit is not None:
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.85 if hit.function == c.function else 0.75,
                              note=f"'{name}' is allocated once and reused by the loop "
                                   f"at line {hit.line_start}")

        yield from self._device_vectors(model, loops, static_names)

    def _device_vectors(self, model: ProgramModel, loops: list[Loop],
                        static_names: set[str]) -> Iterator[Finding]:
        """thrust::device_vector buffers declared outside a loop and used inside it."""
        for fn in model.reachable_functions():
            if not is_host_function(fn) or fn.body is None:
                continue
            for n in descendants(fn.body):
                if n.type != "declaration" or "device_vector" not in model.text_of(
                        n.child_by_field_name("type")) or not model.is_reachable(n):
                    continue
                if any(inside(lp.node, n) for lp in loops):
                    continue
                for d in n.children_by_field_name("declarator"):
                    name = root_identifier(model, d.child_by_field_name("declarator")
                                           if d.type == "init_declarator" else d)
                    if name is None or name in static_names:
                        continue
                    if any(lp.function == fn.name and lp.node.start_byte > n.end_byte
                           and self._used_in(model, lp, {name}) for lp in loops):
                        yield Finding(line(n), line(n), 0.8,
                                      note=f"device_vector '{name}' is reused by a loop")
                        break

    @staticmethod
    def _used_in(model: ProgramModel, loop: Loop, names: set[str]) -> bool:
        for item in device_work_in(model, loop):
            nodes = launch_args(item) if isinstance(item, Launch) else call_args(item)
            if any(names & identifiers(model, a) for a in nodes):
                return True
        return False

    def _reused_by_callee(self, model: ProgramModel, fn: Function, alloc: Call, name: str,
                          loops: list[Loop]) -> Loop | None:
        """The buffer is passed to a helper (``run_steps(d_a, d_b, ...)``) whose loop of
        launches uses it: reuse one call level down."""
        for call in model.calls_in(fn):
            if call.node.start_byte < alloc.node.end_byte:
                continue
            callee = model.function_of(call.name)
            if callee is None or callee.is_kernel:
                continue
            for i, arg in enumerate(call_args(call)):
                if i >= len(callee.params) or name not in identifiers(model, arg):
                    continue
                names = _aliases(model, callee, callee.params[i].name)
                for lp in loops:
                    if lp.function == callee.name and self._used_in(model, lp, names):
                        return lp
        return None


# ---------------------------------------------------------------------------------------------
# HST-02

class PinnedHostMemory(LineDetector):
    """HST-02: reachable cudaMallocHost / cudaHostAlloc / cudaHostRegister."""

    id = "HST-02"
    _NAMES = {"cudaMallocHost", "cudaHostAlloc", "cudaHostRegister"}

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in reachable_host_calls(model):
            if c.name in self._NAMES:
                yield Finding(c.line, c.line, 0.95, note=c.name)


# ---------------------------------------------------------------------------------------------
# HST-03

class TransferComputeOverlap(LineDetector):
    """HST-03: cudaMemcpyAsync on two or more non-default streams, with kernels launched on
    non-default streams, so copies of one chunk overlap kernels of another."""

    id = "HST-03"
    _DEFAULT = {"0", "NULL", "nullptr", "cudaStreamDefault", "cudaStreamLegacy",
                "cudaStreamPerThread", "(cudaStream_t)0", "0LL"}

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        calls = reachable_host_calls(model)
        streams = self._stream_count(model, calls)
        launched_on_stream = [la for la in reachable_launches(model)
                              if la.stream and la.stream.strip() not in self._DEFAULT]
        if streams < 2 or not launched_on_stream:
            return
        async_copies = []
        used_streams: set[str] = set()
        for c in calls:
            if c.name not in ("cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync"):
                continue
            stream_arg = c.args[-1].strip() if c.args else ""
            n_args = {"cudaMemcpyAsync": 5, "cudaMemcpy2DAsync": 8, "cudaMemcpy3DAsync": 2}[c.name]
            if len(c.args) < n_args or stream_arg in self._DEFAULT:
                continue
            async_copies.append(c)
            used_streams.add(stream_arg)
        launch_streams = {la.stream.strip() for la in launched_on_stream}
        indexed = any("[" in s or "[" in self._initialiser(model, async_copies[0], s)
                      for s in used_streams | launch_streams) if async_copies else False
        if not async_copies or (len(used_streams | launch_streams) < 2 and not indexed
                                and not self._in_loop_with_stream_var(model, async_copies)):
            return
        for c in async_copies:
            yield Finding(c.line, c.line, 0.85, intensity=float(streams),
                          note=f"async copy on stream {c.args[-1].strip()} of {streams}")

    @staticmethod
    def _stream_count(model: ProgramModel, calls: list[Call]) -> int:
        total = 0
        for c in calls:
            if not c.name.startswith("cudaStreamCreate"):
                continue
            count = 1
            n = c.node.parent
            while n is not None:
                if n.type in _LOOP_NODES:
                    lp = next((lp for lp in model.loops if lp.node == n), None)
                    if lp is not None and lp.trip_count:
                        count *= lp.trip_count
                    elif lp is not None:
                        count *= 2
                n = n.parent
            total += count
        return total

    @staticmethod
    def _initialiser(model: ProgramModel, call: Call, name: str) -> str:
        """Text of the initialiser of local ``name`` in the function of ``call`` ('' if none)."""
        fn = model.function_of(call.function)
        if fn is None or fn.body is None:
            return ""
        for n in descendants(fn.body):
            if n.type == "init_declarator" and \
                    root_identifier(model, n.child_by_field_name("declarator")) == name:
                return model.text_of(n.child_by_field_name("value"))
        return ""

    @staticmethod
    def _in_loop_with_stream_var(model: ProgramModel, copies: list[Call]) -> bool:
        """A copy in a loop whose stream variable is chosen per iteration."""
        for c in copies:
            for lp in host_loops(model):
                if inside(lp.node, c.node) and lp.var and lp.var in c.args[-1]:
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# HST-04

class DeviceResidentIteration(LineDetector):
    """HST-04: the outermost host loop of launches whose state stays on the device: no
    host<->device copy in every iteration, no per-iteration round trip deciding the loop
    (that is AP-02), not a loop over chunks or batch items, not a multiplicative stage loop."""

    id = "HST-04"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        qualifying = [lp for lp in host_loops(model) if self._qualifies(model, lp)]
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
        counters = loop_var_names(model, loop)
        for item in device_work_in(model, loop):
            if isinstance(item, Launch) and any(
                    identifiers(model, a) & counters for a in launch_args(item)):
                return True
        return False

    def _qualifies(self, model: ProgramModel, loop: Loop) -> bool:
        work = device_work_in(model, loop)
        if not work:
            return False
        if loop.step_op in ("*", "/", "<<", ">>") or stage_loop(model, loop):
            return False
        if round_trips(model, loop):
            return False
        for c in reachable_host_calls(model):
            if inside(loop.node, c.node) and copy_direction(model, c) in ("d2h", "h2d") \
                    and runs_every_iteration(loop, c.node):
                return False
        if self._batch_loop(model, loop, work):
            return False
        return True

    @staticmethod
    def _batch_loop(model: ProgramModel, loop: Loop, work: list) -> bool:
        """A loop over chunks or batch items: a launch argument offsets a pointer, or indexes
        an array, by the loop variable (or a variable derived from it)."""
        counters = loop_var_names(model, loop)
        if not counters:
            return False
        derived: dict[str, Node] = {}
        body = loop.node.child_by_field_name("body") or loop.node
        for n in descendants(body):
            if n.type == "init_declarator":
                name = root_identifier(model, n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
                if name and val is not None:
                    derived[name] = val

        def batchy(node: Node, depth: int = 0) -> bool:
            names = identifiers(model, node)
            if names & counters:
                root = root_identifier(model, node)
                if root in counters:
                    return False
                if any(model.text_of(x.child_by_field_name("operator")) in ("%", "&")
                       for x in descendants(node) if x.type == "binary_expression"):
                    return False  # ping-pong by parity
                return True
            if depth < 2:
                for name in names & set(derived):
                    if batchy(derived[name], depth + 1):
                        return True
            return False

        for item in work:
            nodes = launch_args(item) if isinstance(item, Launch) else call_args(item)
            if isinstance(item, Launch) and item.stream:
                words = set(item.stream.replace("[", " ").replace("]", " ").split())
                if words & counters:
                    return True  # a stream per chunk
            if any(batchy(a) for a in nodes):
                return True
        return False

    @staticmethod
    def _device_side_test(model: ProgramModel, loop: Loop) -> bool:
        """A convergence flag read on the device, or a check amortised over K iterations."""
        for c in reachable_host_calls(model):
            if inside(loop.node, c.node) and copy_direction(model, c) == "d2h" \
                    and modulo_guard(model, loop, c.node) is not None:
                return True
        device_flags = {v.name for v in model.vars if v.space == "device"}
        for la in reachable_launches(model):
            if not inside(loop.node, la.node):
                continue
            fn = model.function_of(la.kernel)
            if fn is not None and fn.body is not None and \
                    identifiers(model, fn.body) & device_flags:
                return True
        return False


# ---------------------------------------------------------------------------------------------
# HST-05

class LaunchOverheadReduction(LineDetector):
    """HST-05: cudaGraphLaunch, batched library calls, or a device-to-host check in a loop of
    launches that runs only every K iterations."""

    id = "HST-05"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for c in reachable_host_calls(model):
            if c.name in ("cudaGraphLaunch", "cudaGraphLaunch_v2"):
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.95, note="CUDA graph replay")
            elif c.category == "cublas" and "Batched" in c.name or c.name == "cufftPlanMany":
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.8, note=f"batched library call {c.name}")
        for lp in host_loops(model):
            if not device_work_in(model, lp):
                continue
            for c in reachable_host_calls(model):
                if not inside(lp.node, c.node):
                    continue
                if copy_direction(model, c) != "d2h" and c.category not in ("sync", "device_sync"):
                    continue
                guard = modulo_guard(model, lp, c.node)
                if guard is not None and line(guard) not in seen:
                    seen.add(line(guard))
                    yield Finding(line(guard), line(guard), 0.75,
                                  note="host check only every K iterations")


# ---------------------------------------------------------------------------------------------
# HST-06

class VendorMathLibrary(LineDetector):
    """HST-06: compute routines of cuBLAS, cuSPARSE, cuSOLVER, cuFFT, cuRAND on a reachable
    host path (setup calls alone do not count); the cuRAND device API at low confidence."""

    id = "HST-06"
    _DEVICE_RAND = ("curand_uniform", "curand_normal", "curand_log_normal", "curand_poisson",
                    "curand_discrete")

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in reachable_host_calls(model):
            if is_library_compute(c):
                yield Finding(c.line, c.line, 0.9, note=f"{c.category}: {c.name}")
        for c in model.calls:
            if c.category == "curand" and c.name.startswith(self._DEVICE_RAND) \
                    and model.is_reachable(c.node):
                fn = model.function_of(c.function) if c.function else None
                if fn is not None and (fn.is_kernel or fn.is_device):
                    yield Finding(c.line, c.line, 0.5, note=f"cuRAND device API: {c.name}")


# ---------------------------------------------------------------------------------------------
# HST-07

class ParallelPrimitivesLibrary(LineDetector):
    """HST-07: Thrust algorithms on device data and CUB device-wide algorithms called from
    reachable host code."""

    id = "HST-07"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in reachable_host_calls(model):
            fn = model.function_of(c.function)
            if is_cub_device(c):
                yield Finding(c.line, c.line, 0.9, note=c.name)
            elif is_thrust_algorithm(c) and not thrust_host_side(model, c, fn):
                conf = 0.7 if base_name(c) in _THRUST_LIGHT else 0.9
                yield Finding(c.line, c.line, conf, note=c.name)


DETECTORS = [DeviceBufferReuse, PinnedHostMemory, TransferComputeOverlap, DeviceResidentIteration,
             LaunchOverheadReduction, VendorMathLibrary, ParallelPrimitivesLibrary]
