"""Detectors for the five anti-patterns, AP-01 .. AP-05.

Anti-patterns are flags, not strategies: serial kernels, a host round trip per iteration,
uncoalesced dominant accesses, state kept between calls of the entry point (a timing loophole)
and host-side computation of the answer. Several of them need to know whether a loop runs over
the *problem* (a size given to the entry point) or over something small (a block count, a
constant table); :func:`sized` answers that by following kernel parameters to the launch
arguments and local variables to their initialisers.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from strategylens.detectors import Finding
from strategylens.detectors.hst import (HOST_SORTS, LineDetector, call_args, descendants,
                                        device_work_in, sort_orders_device_work,
                                        host_loops, identifiers, in_condition_part, inside,
                                        is_cub_device, is_host_function, is_library_compute,
                                        is_thrust_algorithm, launch_args, reachable_host_calls,
                                        reachable_launches, root_identifier, round_trips)
from strategylens.model import Function, Loop, ProgramModel

_INT_WORDS = ("int", "long", "size_t", "unsigned", "short", "ptrdiff_t", "int64_t", "uint64_t",
              "int32_t", "uint32_t")
_BIG_CONSTANT = 4096
_ALLOC_NAMES = {"cudaMalloc", "cudaMallocHost", "cudaMallocManaged", "cudaHostAlloc",
                "cudaMallocPitch", "cudaMalloc3D", "cudaMallocAsync"}
_MATH_CALLS = {"sqrt", "sqrtf", "exp", "expf", "log", "logf", "pow", "powf", "fabs", "fabsf",
               "sin", "sinf", "cos", "cosf", "erf", "erff", "erfc", "erfcf", "fmin", "fmax",
               "fminf", "fmaxf", "std::sqrt", "std::exp", "std::log", "std::pow", "std::abs",
               "std::min", "std::max", "hypot", "hypotf", "atan2", "atan2f"}


# ---------------------------------------------------------------------------------------------
# problem size

def _size_params(fn: Function) -> set[str]:
    return {p.name for p in fn.params
            if not p.is_pointer and any(w in p.type_text for w in _INT_WORDS)}


def _initialisers(model: ProgramModel, fn: Function, name: str) -> list[Node]:
    """Initialiser and assignment values of local ``name`` in ``fn`` (one walk per function,
    kept on the model)."""
    memo = model.__dict__.setdefault("_initialisers_memo", {})
    table = memo.get(fn.name)
    if table is None:
        table = memo[fn.name] = {}
        for n in (descendants(fn.body) if fn.body is not None else ()):
            if n.type == "init_declarator":
                target, v = root_identifier(model, n.child_by_field_name("declarator")), \
                    n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                target, v = model.text_of(n.child_by_field_name("left")), n.child_by_field_name("right")
            else:
                continue
            if target and v is not None:
                table.setdefault(target, []).append(v)
    return table.get(name, [])


def _call_sites(model: ProgramModel, fn: Function) -> list[tuple[Function, list[Node]]]:
    """(caller, argument nodes) for each reachable launch or call of ``fn``."""
    out = []
    for la in reachable_launches(model):
        if la.kernel == fn.name and la.caller:
            caller = model.function_of(la.caller)
            if caller is not None:
                out.append((caller, launch_args(la)))
    for c in model.calls:
        if c.name == fn.name and c.function and model.is_reachable(c.node):
            caller = model.function_of(c.function)
            if caller is not None:
                out.append((caller, call_args(c)))
    return out


def sized(model: ProgramModel, fn: Function, node: Node | None, skip: set[str] = frozenset(),
          depth: int = 0) -> bool:
    """Whether expression ``node`` in ``fn`` grows with the problem: it involves an integer
    parameter of the entry point (followed through call and launch arguments and local
    initialisers) or a constant above 4096, and is not a division (a block count)."""
    if node is None or depth > 4:
        return False
    for n in descendants(node):
        if n.type == "binary_expression" and model.text_of(
                n.child_by_field_name("operator")) in ("/", ">>"):
            return False
    value = model.eval_int(node, fn)
    if value is not None:
        return value > _BIG_CONSTANT
    names = identifiers(model, node) - set(skip)
    params = [p.name for p in fn.params]
    for name in names:
        if name in params:
            if fn.name == model.entry or (not model.entry_found and is_host_function(fn)):
                if name in _size_params(fn):
                    return True
                continue
            idx = params.index(name)
            for caller, args in _call_sites(model, fn):
                if idx < len(args) and sized(model, caller, args[idx], depth=depth + 1):
                    return True
            continue
        inits = _initialisers(model, fn, name)
        if inits:
            if any(sized(model, fn, v, skip | {name}, depth + 1) for v in inits):
                return True
            continue
        const = model.eval_int(name, fn)
        if const is not None and const > _BIG_CONSTANT:
            return True
    return False


def loop_sized(model: ProgramModel, loop: Loop) -> bool:
    """Whether ``loop`` runs over a problem-sized range."""
    fn = model.function_of(loop.function) if loop.function else None
    if fn is None:
        return False
    if loop.trip_count is not None:
        return loop.trip_count > _BIG_CONSTANT
    cond = loop.node.child_by_field_name("condition")
    skip = {loop.var} if loop.var else set()
    if sized(model, fn, cond, skip):
        return True
    # A count-down loop (`for (c = capacity; c >= w[i]; --c)`) takes its range from the start.
    init = loop.node.child_by_field_name("initializer")
    return loop.kind == "for" and init is not None and sized(model, fn, init, skip)


def _device_closure(model: ProgramModel, fn: Function) -> list[Function]:
    """``fn`` and the device functions it calls, transitively."""
    out, todo, seen = [], [fn.name], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = model.function_of(name)
        if f is None or (f is not fn and not f.is_device):
            continue
        out.append(f)
        todo.extend(model.call_graph.get(name, ()))
    return out


def _loop_depth_sized(model: ProgramModel, fn: Function) -> int:
    """Deepest nest of problem-sized loops in ``fn`` and its device callees."""
    best = 0
    for f in _device_closure(model, fn):
        loops = [lp for lp in model.loops if lp.function == f.name and loop_sized(model, lp)]
        for lp in loops:
            d = sum(1 for o in loops if inside(o.node, lp.node))
            best = max(best, d)
    return best


# ---------------------------------------------------------------------------------------------
# AP-01

class SerialKernel(LineDetector):
    """AP-01: a one-block (or one-thread) launch of a kernel that loops over the problem, or a
    problem-sized loop run by one thread (``threadIdx.x == 0``) inside a kernel, when that
    serial work is at least as deep as the parallel work of the other launches (a serial pass
    over n values after an O(n^2) parallel kernel is a small tail, not the heavy work)."""

    id = "AP-01"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        launches = reachable_launches(model)
        for la in launches:
            if la.grid_value is None or _product(la.grid_value) != 1:
                continue
            fn = model.function_of(la.kernel)
            depth = _loop_depth_sized(model, fn) if fn is not None else 0
            if not depth:
                continue
            serial = depth + _host_levels(model, la)
            if serial < _parallel_order(model, launches, exclude=la.kernel):
                continue
            one_thread = la.block_value is not None and _product(la.block_value) == 1
            yield Finding(la.line, la.line, 0.9 if one_thread else 0.75,
                          note=f"{la.kernel} walks the problem in a launch of one "
                               f"{'thread' if one_thread else 'block'}")
        for fn in model.reachable_kernels():
            tvars = model.thread_index_vars(fn)
            loops = [lp for lp in model.loops_in(fn) if loop_sized(model, lp)]
            guarded = [lp for lp in loops if self._single_thread(model, fn, lp, tvars)]
            host = max((_host_levels(model, la) for la in launches if la.kernel == fn.name),
                       default=0)
            for lp in guarded:
                if any(o is not lp and inside(o.node, lp.node) for o in guarded):
                    continue
                nest = max(sum(1 for o in loops
                               if inside(lp.node, o.node) and inside(o.node, i.node))
                           for i in loops if inside(lp.node, i.node))
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


def _host_levels(model: ProgramModel, launch) -> int:
    """Problem-sized host loops around a launch."""
    return sum(1 for lp in host_loops(model)
               if inside(lp.node, launch.node) and loop_sized(model, lp))


def _parallel_order(model: ProgramModel, launches: list, exclude: str) -> int:
    """Deepest work of the multi-block launches of other kernels: one level for the grid, plus
    their problem-sized loops and the problem-sized host loops around them."""
    best = 0
    for la in launches:
        if la.kernel == exclude or (la.grid_value is not None and _product(la.grid_value) == 1):
            continue
        fn = model.function_of(la.kernel)
        if fn is None:
            continue
        best = max(best, 1 + _loop_depth_sized(model, fn) + _host_levels(model, la))
    return best


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _is_single_thread_test(model: ProgramModel, cond: Node, tvars: set[str]) -> bool:
    """``threadIdx.x == 0``, ``tid == 0``, ``blockIdx.x == 0 && threadIdx.x == 0``..."""
    text = model.text_of(cond)
    if "||" in text:
        return False
    for n in descendants(cond):
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


# ---------------------------------------------------------------------------------------------
# AP-02

class HostRoundTripPerIteration(LineDetector):
    """AP-02: in a host loop of launches, a copy to the host (or a synchronisation before a
    read of host-visible memory) in every iteration whose result decides whether the loop
    goes on, or the same device buffer copied to the host and back every iteration."""

    id = "AP-02"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for lp in host_loops(model):
            for ln, conf, note in round_trips(model, lp):
                if ln not in seen:
                    seen.add(ln)
                    yield Finding(ln, ln, conf, note=note)


# ---------------------------------------------------------------------------------------------
# AP-03

class UncoalescedAccess(LineDetector):
    """AP-03: the dominant global accesses of a reachable kernel are strided in threadIdx.x
    (a symbolic stride or one of 5 elements or more), or a thread-per-row CSR walk over all
    rows that is not driven by a frontier or an activity test."""

    id = "AP-03"
    needs_index = True

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            yield from self._strided(model, fn)
            yield from self._csr_walks(model, fn)

    @staticmethod
    def _strided(model: ProgramModel, fn: Function) -> Iterator[Finding]:
        strided: list = []
        weight_bad = weight_good = 0.0
        for a in model.accesses_in(fn):
            if a.space != "global":
                continue
            depth = sum(1 for lp in model.loops_in(fn) if inside(lp.node, a.node))
            w = 2.0 ** depth
            stride = a.stride_tx if a.stride_tx is not None else _lane_stride(a.stride_expr)
            if isinstance(stride, int):
                s = abs(stride)
                if s == 1:
                    weight_good += w
                elif s >= 5:
                    weight_bad += w
                    strided.append(a)
            elif stride == "symbolic":
                weight_bad += w
                strided.append(a)
        covered = _covered_chunks(model, fn, strided)
        for a in strided:
            if a in covered:
                depth = sum(1 for lp in model.loops_in(fn) if inside(lp.node, a.node))
                weight_bad -= 2.0 ** depth
        strided = [a for a in strided if a not in covered]
        if not strided or weight_bad < weight_good:
            return
        libclang = all(a.stride_source == "libclang" for a in strided)
        share = weight_bad / (weight_bad + weight_good)
        for ln in sorted({a.line for a in strided}):
            yield Finding(ln, ln, (0.8 if libclang else 0.6) * (0.75 + 0.25 * share),
                          note=f"global access strided in threadIdx.x in {fn.name}")

    @staticmethod
    def _csr_walks(model: ProgramModel, fn: Function) -> Iterator[Finding]:
        tvars = model.thread_index_vars(fn)
        for lp in model.loops_in(fn):
            if lp.kind != "for":
                continue
            init = lp.node.child_by_field_name("initializer")
            cond = lp.node.child_by_field_name("condition")
            if init is None or cond is None:
                continue
            row = _csr_row(model, init, cond, fn)
            if row is None or row not in tvars or _loaded(model, fn, row):
                continue
            # Lanes striding over one row (`e = row_ptr[w] + lane; e += 32`) is LBL-02, not a
            # thread-per-row walk.
            lanes = identifiers(model, init) & (tvars | {"threadIdx"}) - {row}
            if lanes or (lp.step_value is not None and abs(lp.step_value) > 1):
                continue
            if _data_guarded(model, fn, lp, row):
                continue
            yield Finding(lp.line_start, lp.line_start, 0.7,
                          note=f"thread-per-row CSR walk over row '{row}'")


def _covered_chunks(model: ProgramModel, fn: Function, strided: list) -> set:
    """Accesses with a constant stride S <= 32 where each thread reads all S consecutive
    elements of its chunk (S unrolled offsets, or a loop of at least S iterations over the
    offset): every sector a warp fetches is used, so they are not counted as strided."""
    out = set()
    groups: dict[tuple[str, int], list] = {}
    for a in strided:
        if a.stride_tx is not None and 2 <= abs(a.stride_tx) <= 32:
            groups.setdefault((a.array, abs(a.stride_tx)), []).append(a)
    for (_array, stride), accs in groups.items():
        texts = {a.index_text.replace(" ", "") for a in accs}
        if len(texts) >= stride:
            out.update(accs)
            continue
        for a in accs:
            for lp in model.loops_in(fn):
                if inside(lp.node, a.node) and lp.var and lp.trip_count and \
                        lp.trip_count >= stride and lp.var in identifiers(model, a.index_node):
                    out.add(a)
    return out


def _lane_stride(expr: str | None) -> int | str | None:
    """Stride between consecutive lanes from a symbolic stride text: terms with a coefficient
    of 1/(32k) belong to a warp- or block-uniform index (``tid / 32``) and are dropped; what
    remains is an integer, ``'symbolic'``, or None when there is no stride information."""
    if not expr:
        return None
    rest, groups = [], []
    for term in (t.strip() for t in expr.split(" + ")):
        if term.startswith("(1/"):
            den = term[3:].split(")", 1)[0]
            if den.isdigit():
                groups.append(int(den))
                continue
        rest.append(term)
    if not rest:
        return 0
    if len(rest) == 1 and rest[0].lstrip("-").isdigit():
        stride = int(rest[0])
        # a group of N threads sharing a row covers N * stride contiguous elements: at least
        # one 32-byte sector of 4-byte words counts as coalesced enough
        if all(g * max(abs(stride), 1) >= 8 for g in groups):
            return stride
    return "symbolic"


def _csr_row(model: ProgramModel, init: Node, cond: Node,
             fn: Function | None = None) -> str | None:
    """The row variable ``r`` of a ``for (k = ptr[r]; k < ptr[r + 1]; ...)`` loop, also when the
    bounds go through locals (``int beg = ptr[r], end = ptr[r + 1]; for (k = beg; k < end; ...)``)."""

    def subscripts(node: Node) -> list[Node]:
        found = [n for n in descendants(node) if n.type == "subscript_expression"]
        if fn is not None:
            for name in identifiers(model, node):
                for value in _initialisers(model, fn, name):
                    found += [n for n in descendants(value) if n.type == "subscript_expression"]
        return found

    starts, ends = subscripts(init), subscripts(cond)
    for s in starts:
        arr = root_identifier(model, s.child_by_field_name("argument"))
        idx = identifiers(model, s.child_by_field_name("indices") or s.child_by_field_name("index"))
        for e in ends:
            if root_identifier(model, e.child_by_field_name("argument")) != arr:
                continue
            eidx = e.child_by_field_name("indices") or e.child_by_field_name("index")
            if len(idx) == 1 and idx <= identifiers(model, eidx) and "+" in model.text_of(eidx):
                return next(iter(idx))
    return None


def _loaded(model: ProgramModel, fn: Function, name: str, seen: frozenset = frozenset()) -> bool:
    """Whether local ``name`` comes from memory (``v = frontier[t]``), directly or through other
    locals (``bits = frontier[w]; b = __ffs(bits); u = w * 32 + b``)."""
    if name in seen or len(seen) > 6:
        return False
    for value in _initialisers(model, fn, name):
        if any(n.type in ("subscript_expression", "pointer_expression") for n in descendants(value)):
            return True
        if any(_loaded(model, fn, other, seen | {name})
               for other in identifiers(model, value) - {name}):
            return True
    return False


def _data_guarded(model: ProgramModel, fn: Function, loop: Loop, row: str) -> bool:
    """The walk only runs for rows selected by data: an enclosing ``if`` or an earlier early
    return whose condition reads memory at the row (directly or through a loaded local)."""
    loaded_locals = {name for name in identifiers(model, fn.body)
                     if any(row in identifiers(model, v) and any(
                         d.type == "subscript_expression" for d in descendants(v))
                         for v in _initialisers(model, fn, name))}

    def data_test(cond: Node | None) -> bool:
        if cond is None:
            return False
        for n in descendants(cond):
            if n.type == "subscript_expression" and row in identifiers(model, n):
                return True
        return bool(identifiers(model, cond) & loaded_locals)

    for n in descendants(fn.body):
        if n.type != "if_statement":
            continue
        cond = n.child_by_field_name("condition")
        if inside(n, loop.node) and not in_condition_part(n, loop.node) and data_test(cond):
            return True
        if n.end_byte <= loop.node.start_byte and data_test(cond):
            cons = n.child_by_field_name("consequence")
            if cons is not None and any(d.type in ("return_statement", "continue_statement")
                                        for d in descendants(cons)):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# AP-04

class CrossCallState(LineDetector):
    """AP-04: a static local or non-const file-scope host variable that reachable host code
    writes and tests (lazy init, capacity, "already computed" flags) or that keeps a device
    allocation the entry path does not free."""

    id = "AP-04"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        fns = [f for f in model.reachable_functions() if is_host_function(f) and f.body is not None]
        for v in model.vars:
            if v.space != "static" or self._constant(model, v.node):
                continue
            if v.function is not None:
                owner = model.function_of(v.function)
                if owner is None or not is_host_function(owner) or not model.is_reachable(v.node):
                    continue
                scope = [owner]
            else:
                scope = fns
            written = tested = False
            for f in scope:
                w, t = self._uses(model, f, v.name, v.node)
                written |= w
                tested |= t
            if written and tested:
                yield Finding(v.line, v.line, 0.9,
                              note=f"'{v.name}' is kept and tested across calls")
            elif self._kept_allocation(model, scope, v.name):
                yield Finding(v.line, v.line, 0.8,
                              note=f"'{v.name}' holds an allocation that outlives the call")

    @staticmethod
    def _constant(model: ProgramModel, decl: Node) -> bool:
        n = decl
        while n is not None and n.type not in ("declaration", "translation_unit"):
            n = n.parent
        if n is None or n.type != "declaration":
            return False
        for ch in n.children:
            if ch.type in ("type_qualifier", "storage_class_specifier") and \
                    model.text_of(ch) in ("const", "constexpr", "__constant__", "__device__",
                                          "__shared__", "__managed__"):
                return True
        return False

    @staticmethod
    def _uses(model: ProgramModel, fn: Function, name: str, decl: Node) -> tuple[bool, bool]:
        written = tested = False
        for n in descendants(fn.body):
            if n.type != "identifier" or model.text_of(n) != name or inside(decl, n):
                continue
            top = n  # climb member and element accesses: g.buf[i] = ... writes g
            while top.parent is not None and top.parent.type in (
                    "field_expression", "subscript_expression") and \
                    top.parent.child_by_field_name("argument") == top:
                top = top.parent
            p = top.parent
            # written: assignment target, ++/--, &name passed on, container update
            if p.type == "assignment_expression" and p.child_by_field_name("left") == top:
                written = True
            elif p.type == "update_expression":
                written = True
            elif p.type == "pointer_expression" and model.text_of(p).startswith("&"):
                written = True
            elif top is not n and top.type == "field_expression" and p.type == "call_expression" \
                    and model.text_of(top.child_by_field_name("field")) in (
                        "push_back", "resize", "assign", "insert", "emplace_back", "clear",
                        "reserve"):
                written = True
            # tested: inside a condition
            a = n.parent
            while a is not None and a != fn.body:
                if a.type in ("if_statement", "while_statement", "conditional_expression",
                              "for_statement", "do_statement") and in_condition_part(a, n):
                    tested = True
                    break
                a = a.parent
        return written, tested

    @staticmethod
    def _kept_allocation(model: ProgramModel, scope: list[Function], name: str) -> bool:
        names = {f.name for f in scope}
        allocs = [c for c in reachable_host_calls(model)
                  if c.function in names and c.name in _ALLOC_NAMES and call_args(c)
                  and root_identifier(model, call_args(c)[0]) == name]
        if not allocs:
            return False
        last = max(c.node.end_byte for c in allocs)
        for c in reachable_host_calls(model):
            if c.function in names and c.category in ("free", "pinned", "async_alloc") and \
                    c.name in ("cudaFree", "cudaFreeHost", "cudaFreeAsync") and call_args(c) and \
                    root_identifier(model, call_args(c)[0]) == name and c.node.start_byte > last:
                return False
        return True


# ---------------------------------------------------------------------------------------------
# AP-05

class HostSideCompute(LineDetector):
    """AP-05: the deepest problem-sized computing loop nest (or a sort) on the host is deeper
    than the work launched on the device, or there is no device work at all. Small-input
    fallbacks (``if (n < T) { host loop; return; }``) are LBL-06 and are skipped."""

    id = "AP-05"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        nests = self._host_nests(model)
        if not nests:
            return
        host_order = max(order for order, _ in nests)
        device_order = self._device_order(model)
        if device_order is not None and host_order <= device_order:
            return
        for order, ln in nests:
            if order == host_order:
                yield Finding(ln, ln, 0.8 if device_order is None else 0.7,
                              note=f"host loop nest of depth {order:g} against device "
                                   f"depth {device_order or 0:g}")

    def _host_nests(self, model: ProgramModel) -> list[tuple[float, int]]:
        loops = [lp for lp in host_loops(model)
                 if loop_sized(model, lp) and not device_work_in(model, lp)
                 and not self._fallback(model, lp)]
        computing = [lp for lp in loops if self._computes(model, lp)]
        out = []
        for top in loops:
            if any(o is not top and inside(o.node, top.node) for o in loops):
                continue
            inner = [lp for lp in computing if inside(top.node, lp.node)]
            if not inner:
                continue
            depth = max(sum(1 for o in loops if inside(o.node, lp.node)) for lp in inner)
            out.append((float(depth), top.line_start))
        for c in reachable_host_calls(model):
            if c.name in HOST_SORTS and not self._fallback(model, c) and \
                    not sort_orders_device_work(model, c):
                out.append((1.5, c.line))
        return out

    @staticmethod
    def _fallback(model: ProgramModel, item) -> bool:
        node = item.node
        n = node.parent
        while n is not None:
            if n.type == "if_statement" and not in_condition_part(n, node):
                cond = model.text_of(n.child_by_field_name("condition"))
                cons = n.child_by_field_name("consequence")
                if "<" in cond and cons is not None and inside(cons, node) and any(
                        d.type == "return_statement" for d in descendants(cons)):
                    return True
            n = n.parent
        return False

    @staticmethod
    def _computes(model: ProgramModel, loop: Loop) -> bool:
        body = loop.node.child_by_field_name("body")
        if body is None:
            return False
        for n in descendants(body):
            if _in_index(n):
                continue
            if n.type == "binary_expression":
                op = model.text_of(n.child_by_field_name("operator"))
                if op in ("+", "-", "*", "/", "<", ">", "<=", ">=") and any(
                        d.type in ("subscript_expression", "call_expression")
                        for d in descendants(n)):
                    return True
            elif n.type == "assignment_expression":
                op = model.text_of(n.child_by_field_name("operator"))
                if op in ("+=", "-=", "*=", "/=") and any(
                        d.type in ("subscript_expression", "identifier")
                        for d in descendants(n.child_by_field_name("right"))):
                    return True
            elif n.type == "call_expression":
                if model.text_of(n.child_by_field_name("function")) in _MATH_CALLS:
                    return True
        return False

    @staticmethod
    def _device_order(model: ProgramModel) -> float | None:
        best: float | None = None
        for la in reachable_launches(model):
            fn = model.function_of(la.kernel)
            if fn is None:
                continue
            grid = 0.0 if la.grid_value is not None and _product(la.grid_value) == 1 else 1.0
            inner = _loop_depth_sized(model, fn)
            if not grid and not inner:
                continue  # a one-block launch without problem-sized loops does no real work
            order = grid + inner + _host_levels(model, la)
            best = order if best is None else max(best, order)
        for c in reachable_host_calls(model):
            if is_library_compute(c) or is_thrust_algorithm(c) or is_cub_device(c):
                best = max(best or 0.0, 2.0)
        return best


def _in_index(node: Node) -> bool:
    """Whether ``node`` is inside the index of a subscript (index arithmetic is not compute)."""
    n = node.parent
    child = node
    while n is not None:
        if n.type == "subscript_expression" and n.child_by_field_name("argument") != child:
            return True
        if n.type in ("compound_statement", "expression_statement"):
            return False
        child, n = n, n.parent
    return False


DETECTORS = [SerialKernel, HostRoundTripPerIteration, UncoalescedAccess, CrossCallState,
             HostSideCompute]
