"""AP-03 uncoalesced access: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import Function, Loop, Node, ProgramModel, in_condition_part, inside, walk


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
                if inside(a.node, lp.node) and lp.var and lp.trip_count and \
                        lp.trip_count >= stride and lp.var in model.identifiers(a.index_node):
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
        found = [n for n in walk(node) if n.type == "subscript_expression"]
        if fn is not None:
            for name in model.identifiers(node):
                for value in model.initialisers(fn, name):
                    found += [n for n in walk(value) if n.type == "subscript_expression"]
        return found

    starts, ends = subscripts(init), subscripts(cond)
    for s in starts:
        arr = model.root_identifier(s.child_by_field_name("argument"))
        idx = model.identifiers(s.child_by_field_name("indices") or s.child_by_field_name("index"))
        for e in ends:
            if model.root_identifier(e.child_by_field_name("argument")) != arr:
                continue
            eidx = e.child_by_field_name("indices") or e.child_by_field_name("index")
            if len(idx) == 1 and idx <= model.identifiers(eidx) and "+" in model.text_of(eidx):
                return next(iter(idx))
    return None


def _loaded(model: ProgramModel, fn: Function, name: str, seen: frozenset = frozenset()) -> bool:
    """Whether local ``name`` comes from memory (``v = frontier[t]``), directly or through other
    locals (``bits = frontier[w]; b = __ffs(bits); u = w * 32 + b``)."""
    if name in seen or len(seen) > 6:
        return False
    for value in model.initialisers(fn, name):
        if any(n.type in ("subscript_expression", "pointer_expression") for n in walk(value)):
            return True
        if any(_loaded(model, fn, other, seen | {name})
               for other in model.identifiers(value) - {name}):
            return True
    return False


def _data_guarded(model: ProgramModel, fn: Function, loop: Loop, row: str) -> bool:
    """The walk only runs for rows selected by data: an enclosing ``if`` or an earlier early
    return whose condition reads memory at the row (directly or through a loaded local)."""
    loaded_locals = {name for name in model.identifiers(fn.body)
                     if any(row in model.identifiers(v) and any(
                         d.type == "subscript_expression" for d in walk(v))
                         for v in model.initialisers(fn, name))}

    def data_test(cond: Node | None) -> bool:
        if cond is None:
            return False
        for n in walk(cond):
            if n.type == "subscript_expression" and row in model.identifiers(n):
                return True
        return bool(model.identifiers(cond) & loaded_locals)

    for n in walk(fn.body):
        if n.type != "if_statement":
            continue
        cond = n.child_by_field_name("condition")
        if inside(loop.node, n) and not in_condition_part(n, loop.node) and data_test(cond):
            return True
        if n.end_byte <= loop.node.start_byte and data_test(cond):
            cons = n.child_by_field_name("consequence")
            if cons is not None and any(d.type in ("return_statement", "continue_statement")
                                        for d in walk(cons)):
                return True
    return False


class UncoalescedAccess(LineDetector):
    id = "AP-03"
    needs_index = True

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            if model.minor_kernel(fn):
                continue  # strided access in a helper pass does not dominate the run
            yield from self._strided(model, fn)
            yield from self._csr_walks(model, fn)

    @staticmethod
    def _strided(model: ProgramModel, fn: Function) -> Iterator[Finding]:
        strided: list = []
        weight_bad = weight_good = 0.0
        for a in model.accesses_in(fn):
            if a.space != "global":
                continue
            depth = sum(1 for lp in model.loops_in(fn) if inside(a.node, lp.node))
            w = 2.0 ** depth
            stride = a.stride_tx if a.stride_tx is not None else _lane_stride(a.stride_expr)
            if model.vector_lanes(fn, a):
                stride = 1  # each lane moves one vector of a contiguous run
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
                depth = sum(1 for lp in model.loops_in(fn) if inside(a.node, lp.node))
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
            lanes = model.identifiers(init) & (tvars | {"threadIdx"}) - {row}
            if lanes or (lp.step_value is not None and abs(lp.step_value) > 1):
                continue
            if _data_guarded(model, fn, lp, row):
                continue
            yield Finding(lp.line_start, lp.line_start, 0.7,
                          note=f"thread-per-row CSR walk over row '{row}'")
