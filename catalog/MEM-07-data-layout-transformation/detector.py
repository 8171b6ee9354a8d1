"""MEM-07 data layout transformation: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction

from strategylens.detectors import Detector, Finding
from strategylens.model import (ProgramModel, assignment_of, inside, line, squash, strip,
                                subscript_indices)


PITCH_CALLS = {"cudaMallocPitch", "cudaMalloc3D", "cudaMemcpy2D", "cudaMemcpy2DAsync",
               "cudaMemcpy3D", "cudaMemcpy3DAsync", "cudaMalloc3DArray", "cudaMallocArray",
               "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray"}


class DataLayoutTransformation(Detector):
    id = "MEM-07"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for c in model.calls_in():
            if c.name in PITCH_CALLS:
                yield Finding(c.line, c.line, 0.8, None, c.name)
        seen = set()
        for c in model.calls_in():
            # cublas<t>geam with a transposed operand: the library's out-of-place transpose
            if re.fullmatch(r"cublas[SDCZ]geam(_v2)?", c.name) and \
                    any(re.search(r"CUBLAS_OP_[TC]\b", a) for a in c.args[1:3]) and \
                    model.host_role(c.function) in (None, "solution", "driver"):
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.6, None, f"transpose by {c.name}")
        for a, b in model.colour_launches:  # a grid kept as one array per colour
            for la in (a, b):
                if la.line not in seen:
                    seen.add(la.line)
                    yield Finding(la.line, la.line, 0.5, None, "grid split into colour arrays")
        for fn in model.gpu_functions():
            for node, cls, args in model.cub_collectives(fn):
                if (cls in ("BlockLoad", "BlockStore") and "TRANSPOSE" in args) or \
                        cls in ("BlockExchange", "WarpExchange"):
                    if line(node) not in seen:
                        seen.add(line(node))
                        yield Finding(line(node), line(node), 0.6, None,
                                      f"blocked/striped exchange ({cls})")
        for fn in model.reachable_functions():
            if fn.body is None or model.host_role(fn) not in (None, "solution", "driver"):
                continue  # verification and set-up code re-lay data for the program, not the task
            device = fn.is_kernel or (fn.is_device and not fn.is_host)
            hits = []
            for n in model.fn_nodes(fn, "assignment_expression"):
                if model.text_of(n.child_by_field_name("operator")) != "=" or not model.is_reachable(n):
                    continue
                left = strip(n.child_by_field_name("left"))
                right = strip(n.child_by_field_name("right"))
                kind = self._relayout(model, left, right)
                if kind == "transpose" and model.array_name(left) == model.array_name(right) and \
                        not self._saved(model, fn, n, left):
                    continue  # a[j][i] = a[i][j] mirrors a symmetric matrix
                if kind:
                    hits.append((n, kind, model.array_name(left), model.array_name(right)))
            if fn.is_kernel:
                hits += self._permuted_copies(model, fn)
            for n, kind, dst, src in hits:
                if device and not self._device_relayout(model, fn, kind, dst, src, hits):
                    continue
                if line(n) not in seen:
                    seen.add(line(n))
                    yield Finding(line(n), line(n), 0.7 if kind != "transpose" else 0.6, None, kind)
            if not device:
                for n in self._carved(model, fn):
                    if line(n) not in seen:
                        seen.add(line(n))
                        yield Finding(line(n), line(n), 0.6, None,
                                      "one buffer carved into per-field arrays")
            if device:
                for ln in self._striped_blocked(model, fn):
                    if ln not in seen:
                        seen.add(ln)
                        yield Finding(ln, ln, 0.65, None, "striped to blocked through shared memory")

    @staticmethod
    def _carved(model, fn) -> list:
        """``S s = { (float4*)buf, (float4*)buf + n };``: a struct of arrays whose members point
        into one buffer at different offsets (the buffer laid out as separate arrays)."""
        out = []
        for n in model.fn_nodes(fn, "init_declarator"):
            value = n.child_by_field_name("value")
            if value is None or value.type != "initializer_list" or \
                    len(value.named_children) < 2 or not model.is_reachable(n):
                continue
            kids = value.named_children
            sources = [model.pointer_sources(k) for k in kids]
            if not all(len(x) == 1 for x in sources) or len(set.union(*sources)) != 1:
                continue
            t = model.types.type_of(fn, next(iter(sources[0])))
            offset = any(strip(k) is not None and strip(k).type == "binary_expression" for k in kids)
            if t is not None and t[1] >= 1 and offset:
                out.append(n)
        return out

    @staticmethod
    def _striped_blocked(model, fn) -> list[int]:
        """A shared array written at stride 1 in threadIdx.x and read at stride K > 1 by a loop
        over K consecutive elements (or the reverse): each thread's K items exchanged between the
        striped arrangement of coalesced loads and a blocked one (or back). Lines of both."""
        by_array: dict[str, list] = {}
        for a in model.accesses_in(fn):
            if a.space == "shared" and a.stride_tx is not None:
                by_array.setdefault(a.array, []).append(a)
        lines = []
        for accs in by_array.values():
            for a in accs:
                k = a.stride_tx
                if not isinstance(k, (int, Fraction)) or k <= 1 or k != int(k):
                    continue
                loops = [lp for lp in model.loops_in(fn) if lp.var and lp.trip_count == k and
                         lp.var in model.identifiers(a.index_node) and inside(a.node, lp.node)]
                other = [b for b in accs if b.is_write != a.is_write and b.stride_tx == 1]
                if loops and other:
                    lines += [a.line] + [b.line for b in other]
        return sorted(set(lines))

    def _permuted_copies(self, model, fn) -> list:
        """Stores ``dst[i] = src[p]`` (or fields of it, through locals) with ``p = perm[i]``
        loaded from an index array, into two or more global arrays: the kernel reorders data by a
        permutation (a sort order, cells) for the kernels that follow. One gathered array, or a
        value computed from the gathered elements, is an ordinary gather."""
        out, shared = [], model.shared_views(fn)
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if model.text_of(n.child_by_field_name("operator")) != "=" or left is None or \
                    left.type != "subscript_expression" or len(subscript_indices(left)) != 1 or \
                    not model.is_reachable(n) or model.array_name(left) in shared:
                continue  # a gather into shared memory stages a working set
            index = squash(model.text_of(subscript_indices(left)[0]))
            srcs = self._gathered(model, fn, n.child_by_field_name("right"), index, 2)
            dst = squash(model.text_of(left.child_by_field_name("argument")))
            if srcs and dst not in srcs and model.uses_thread_index(subscript_indices(left)[0]):
                out.append((n, "reordered by a permutation", dst, min(srcs)))
        dsts = {d for _, _, d, _ in out}
        return out if len(dsts) >= 2 else []

    def _gathered(self, model, fn, expr, index: str, depth: int) -> set[str] | None:
        """The arrays ``expr`` copies from at a permuted index (``src[p]`` with ``p`` loaded
        as ``perm[index]``), following fields and locals; None when it computes anything."""
        expr = strip(expr)
        if expr is None:
            return None
        if expr.type == "field_expression":
            return self._gathered(model, fn, expr.child_by_field_name("argument"), index, depth)
        if expr.type == "subscript_expression":
            ix = subscript_indices(expr)
            if len(ix) == 1 and strip(ix[0]) is not None and strip(ix[0]).type == "identifier" \
                    and self._permutation(model, fn, model.text_of(strip(ix[0])), index):
                return {squash(model.text_of(expr.child_by_field_name("argument")))}
            return None
        if expr.type != "identifier" or depth == 0:
            return None
        name = model.text_of(expr)
        values = [r for op, r in model.local_defs_op(fn, name) if op == "="]
        for a in model.fn_nodes(fn, "assignment_expression"):  # v.x = pt.real
            target = strip(a.child_by_field_name("left"))
            if target is not None and target.type == "field_expression" and \
                    model.text_of(target.child_by_field_name("argument")) == name:
                values.append(a.child_by_field_name("right"))
        found = set()
        for v in values:
            got = self._gathered(model, fn, v, index, depth - 1)
            if not got:
                return None
            found |= got
        return found or None

    @staticmethod
    def _permutation(model, fn, name: str, index: str) -> bool:
        """Local ``name`` is loaded from an index array at ``index`` (``p = perm[i]``)."""
        defs = model.local_defs(fn, name)
        return bool(defs) and all(
            strip(d) is not None and strip(d).type == "subscript_expression" and
            [squash(model.text_of(i)) for i in subscript_indices(strip(d))] == [index]
            for d in defs)

    @staticmethod
    def _saved(model, fn, store, left) -> bool:
        """The element ``store`` overwrites is read elsewhere in ``fn`` (kept in a temporary,
        as an in-place transpose swaps it)."""
        text = squash(model.text_of(left))
        return any(squash(model.text_of(s)) == text and assignment_of(s) is None and
                   not (store.start_byte <= s.start_byte < store.end_byte)
                   for s in model.fn_nodes(fn, "subscript_expression"))

    @staticmethod
    def _device_relayout(model, fn, kind, dst, src, hits) -> bool:
        """In a kernel, a strided copy is a re-layout only when it splits one source into several
        arrays (a single out[i] = in[2*i] is decimation), and a transpose only when another kernel
        then reads the transposed buffer (a transpose that is the task's output is the task)."""
        if kind == "interleaved split":
            return len({d for _, k, d, s in hits if k == kind and s == src}) >= 2
        if kind != "transpose":
            return True
        params = [p.name for p in fn.params]
        if dst not in params:
            return False
        pos = params.index(dst)
        for la in model.launches_of(fn.name):
            args = la.node.child_by_field_name("arguments")
            if args is None or pos >= args.named_child_count:
                continue
            buf = model.text_of(args.named_children[pos]).strip("&* ")
            for other in model.launches_of():
                if other.kernel == fn.name:
                    continue
                oargs = other.node.child_by_field_name("arguments")
                ofn = model.function_of(other.kernel)
                if oargs is None or ofn is None:
                    continue
                for i, a in enumerate(oargs.named_children):
                    if model.text_of(a).strip("&* ") != buf or i >= len(ofn.params):
                        continue
                    pname = ofn.params[i].name
                    if any(x.array == pname and x.is_read and not x.is_write
                           for x in model.accesses_in(ofn)):
                        return True
        return False

    def _relayout(self, model, left, right) -> str | None:
        if left is not None and right is not None and left.type == "field_expression" and \
                right.type == "subscript_expression":
            arg = strip(left.child_by_field_name("argument"))
            if arg is not None and arg.type == "subscript_expression":
                return "SoA to AoS"
        if left is not None and right is not None and left.type == "subscript_expression" and \
                right.type == "call_expression" and model.text_of(
                    right.child_by_field_name("function")).startswith("make_"):
            args = right.child_by_field_name("arguments")
            srcs = {model.array_name(strip(a)) for a in args.named_children
                    if strip(a) is not None and strip(a).type == "subscript_expression"}
            if len(srcs) >= 2:
                return "SoA packed into a vector type"
        if left is None or right is None or left.type != "subscript_expression":
            return None
        if right.type == "field_expression":
            arg = strip(right.child_by_field_name("argument"))
            if arg is not None and arg.type == "subscript_expression" and \
                    len(subscript_indices(left)) == 1 and \
                    model.eval_int(subscript_indices(left)[0]) is None:
                return "AoS to SoA"  # a constant slot (rec.v[0] = m[0].x) fills one record
            return None
        if right.type != "subscript_expression":
            return None
        li, ri = subscript_indices(left), subscript_indices(right)
        if len(li) == 2 and len(ri) == 2:
            a, b = model.text_of(li[0]), model.text_of(li[1])
            if a != b and a == model.text_of(ri[1]) and b == model.text_of(ri[0]):
                return "transpose"
            return None
        if len(li) != 1 or len(ri) != 1:
            return None
        names = model.identifiers(li[0]) & model.identifiers(ri[0])
        roles = {}
        for v in names:
            cl, cr = model.coefficient_of(li[0], v), model.coefficient_of(ri[0], v)
            if cl is None or cr is None:
                return None
            roles[v] = (cl, cr)
            if (cl == 1 and isinstance(cr, int) and cr > 1) or (
                    cr == 1 and isinstance(cl, int) and cl > 1):
                return "interleaved split"
        for v, (cl, cr) in roles.items():
            for w, (dl, dr) in roles.items():
                if v != w and cl == 1 and dl == "sym" and cr == "sym" and dr == 1:
                    return "transpose"
        return None
