"""MEM-01 coalesced access: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (Access, ProgramModel, SCALAR_BYTES, VECTOR_BITS, body_loops,
                                enclosing_loops, strip)


class CoalescedAccess(Detector):
    id = "MEM-01"
    needs_index = True

    @staticmethod
    def _short(model: ProgramModel, loop) -> bool:
        """A loop of at most 32 trips in every template instance (``for k < BPT``)."""
        trips = [loop.trip_count] if loop.trip_count is not None else model.trip_counts(loop)
        return bool(trips) and max(trips) <= 32

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        fns = {f.name: f for f in model.gpu_functions()}
        loops = {lp.node.id: lp for lp in model.loops}
        by_fn: dict[str, list[Access]] = {}
        for a in model.accesses_in():
            if a.space == "global" and a.function in fns:
                by_fn.setdefault(a.function, []).append(a)
        # the file's accesses together, else any kernel of its own (a coalesced backward kernel
        # beside forward kernels in which each thread walks its own small record)
        found = self._judge(model, fns, loops, [a for v in by_fn.values() for a in v])
        if found is None:
            for accesses in by_fn.values():
                found = self._judge(model, fns, loops, accesses, own=True)
                if found is not None:
                    break
        if found is not None:
            yield from found

    def _judge(self, model, fns, loops, accesses, own: bool = False):
        """The findings when the stride-1 accesses among ``accesses`` carry the traffic, else
        None; ``own``: one kernel's accesses judged alone (a lower confidence)."""
        unit: list[Access] = []
        w_unit = w_strided = w_unknown = 0.0
        total = 0
        sources = set()
        records = self._own_records(model, fns, accesses)
        for a in accesses:
            total += 1
            # loops with a small fixed trip count (unrolled lanes, stencil taps) do not make an
            # access dominant: only open or long loops weigh
            repeats = [n for n in body_loops(a.node, fns[a.function])
                       if n.id not in loops or not self._short(model, loops[n.id])]
            weight = 4.0 ** min(len(repeats), 3)
            parent = a.node.parent
            aos = parent is not None and parent.type == "field_expression" and \
                self._struct_element(model, fns[a.function], a)
            stride = a.stride_tx
            if stride is None and a.stride_expr is None:
                stride = self._walk_stride(model, fns[a.function], a, loops)
            elif stride is None and model.vector_lanes(fns[a.function], a):
                stride = 1  # copy_vector<T, VEC>(dst, src + off) with lanes VEC elements apart
            elif stride is None:
                # symbolic strides from exact division (row = tid / 32 -> cols/32) are uniform
                # within a warp; take the warp-level reading when it gives a number
                mine = model.warp_stride(fns[a.function], a.index_node)
                if isinstance(mine, int):
                    stride = mine
            if stride not in (0, 1) and model.vector_lanes(fns[a.function], a):
                stride = 1  # load_global<16>(buf, in + 4 * tid): each lane's vector follows
            if id(a) in records:
                stride = 1  # re[2 * i], im[2 * i + 1]: the thread's own small record
            if stride == 1 and not aos:
                unit.append(a)
                w_unit += weight
                sources.add(a.stride_source)
            elif aos or stride == "walk" or (stride not in (0, 1) and (stride is not None or (
                    a.stride_expr not in (None, "0", "1")))):
                w_strided += weight
            elif stride is None and not self._gather(model, fns[a.function], a):
                w_unknown += weight
        # stride-1 accesses must not be outweighed by strided ones, and must be a fair part of
        # the traffic (a coalesced frontier read before data-dependent adjacency walks is not)
        if not unit or w_unit < w_strided or w_unit < 0.25 * (w_unit + w_strided + w_unknown):
            return None
        share = round(len(unit) / total, 3)
        base = 0.85 if sources == {"libclang"} and model.index_status == "ok" else 0.6
        conf = round(base * (0.6 + 0.4 * w_unit / (w_unit + w_strided)) * (0.8 if own else 1), 3)
        return [Finding(ln, ln, conf, share, "stride 1 in threadIdx.x")
                for ln in sorted({a.line for a in unit})]

    @staticmethod
    def _gather(model, fn, a) -> bool:
        """A hinted load (``__ldg(p + j)``) at an index read from global memory: a gather
        routed through the read-only cache, left out of the weights."""
        return a.node.type == "call_expression" and a.index_node is not None and \
            model.reads_global(fn, a.index_node, model.global_names(fn))

    @staticmethod
    def _own_records(model, fns, accesses) -> set[int]:
        """Accesses that together read or write each thread's own record of 8 or 16 bytes, a
        vector's width split into scalars: ``a[2 * i]`` and ``a[2 * i + 1]`` (stride 2 or 4,
        every offset 0 .. s - 1 of one base), whose warp covers one contiguous range."""
        groups: dict[tuple, dict[int, list[Access]]] = {}
        for a in accesses:
            s, ix = a.stride_tx, strip(a.index_node)
            if s not in (2, 4) or ix is None:
                continue
            offset = 0
            if ix.type == "binary_expression" and \
                    model.text_of(ix.child_by_field_name("operator")) == "+":
                offset = model.eval_int(ix.child_by_field_name("right"), fns[a.function])
                if offset is not None:
                    ix = strip(ix.child_by_field_name("left"))
            t = model.types.type_of(fns[a.function], a.array)
            size = SCALAR_BYTES.get(t[0]) if t is not None else None
            if offset is None or size is None or s * size > 16:
                continue
            key = (a.function, a.array, s, model.text_of(ix))
            groups.setdefault(key, {}).setdefault(offset, []).append(a)
        return {id(a) for (_, _, s, _), by in groups.items() if set(by) == set(range(s))
                for v in by.values() for a in v}

    @staticmethod
    def _walk_stride(model, fn, a, loops):
        """Stride of an index that is a loop variable starting at a data-dependent position:
        ``'walk'`` when each thread walks its own range (init from a load such as
        ``row_ptr[row]``, step 1: consecutive lanes are far apart), 1 when the start has a
        direct lane term (``start + lane``: lanes read consecutive elements), else None."""
        ix = strip(a.index_node)
        if ix is not None and ix.type == "binary_expression" and \
                model.text_of(ix.child_by_field_name("operator")) in ("+", "-") and \
                model.eval_int(ix.child_by_field_name("right"), fn) is not None:
            ix = strip(ix.child_by_field_name("left"))
        if ix is None or ix.type != "identifier":
            return model.warp_stride(fn, a.index_node)
        var = model.text_of(ix)
        for anc in enclosing_loops(a.node, fn):
            lp = loops.get(anc.id)
            if lp is None or lp.var != var:
                continue
            init = anc.child_by_field_name("initializer")
            if init is None:
                return None
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            direct = load = False
            stack = [init]
            while stack:
                n = stack.pop()
                if n.type == "subscript_expression":
                    load = load or model.uses_thread_index(n)
                    continue
                if n.type == "identifier" and model.text_of(n) in tiv:
                    direct = True
                stack.extend(n.named_children)
            if direct:
                return 1
            if load and lp.step_value in (1, -1):
                return "walk"
            return None
        return model.warp_stride(fn, a.index_node)

    @staticmethod
    def _struct_element(model, fn, a) -> bool:
        t = model.types.type_of(fn, a.array)
        return t is not None and t[0] not in SCALAR_BYTES and t[0] not in VECTOR_BITS
