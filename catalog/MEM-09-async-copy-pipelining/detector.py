"""MEM-09 async copy pipelining: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, assignment_of, call_args, line, subscript_indices


ASYNC_COPY = ("memcpy_async", "__pipeline_memcpy_async", "cp_async_bulk_tensor",
              "cp_async_bulk", "cp_async", "memcpy_async_tx")


class AsyncCopyPipelining(Detector):
    id = "MEM-09"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.gpu_functions():
            if fn.body is None:
                continue
            stages = max([v.dim_values[0] for v in model.vars_in(fn, space="shared")
                          if len(v.dims) >= 2 and v.dim_values[0] in (2, 3, 4, 5, 6, 7, 8)] or [2])
            async_lines = set()
            for c in model.calls_in(fn):
                # spelled any way: cp_async_cg, CP_ASYNC_CG (a header's macro), cpAsync
                short = c.name.split("::")[-1].split(".")[-1].replace("_", "").lower()
                if any(short.startswith(p.replace("_", "")) for p in ASYNC_COPY):
                    async_lines.add(c.line)
            for n in model.fn_nodes(fn, "gnu_asm_expression"):
                if "cp.async" in model.text_of(n) and model.is_reachable(n):
                    async_lines.add(line(n))
            for ln in sorted(async_lines):
                yield Finding(ln, ln, 0.9, float(stages), "asynchronous copy to shared memory")
            if async_lines or not fn.is_kernel:
                continue
            yield from self._manual(model, fn)

    def _manual(self, model, fn) -> Iterator[Finding]:
        gnames = model.global_names(fn)
        for v in model.vars_in(fn, space="shared"):
            if len(v.dims) < 2 or v.dim_values[0] not in (2, 3, 4):
                continue
            writes, reads, _ = model.shared_array_uses(fn, v.name)
            for lp in model.loops_in(fn):
                lo, hi = lp.node.start_byte, lp.node.end_byte

                def inside(n, lo=lo, hi=hi) -> bool:
                    return lo <= n.start_byte < hi

                stage_w = [w for w in writes if inside(w) and self._stage_index(model, fn, w)
                           and model.reads_global(fn,
                                                 assignment_of(w).child_by_field_name("right"),
                                                 gnames)]
                stage_w += self._helper_fills(model, fn, v.name, lp)
                stage_r = [r for r in reads if inside(r) and self._stage_index(model, fn, r)]
                if stage_w and stage_r and {model.text_of(subscript_indices(w)[0]) for w in stage_w} \
                        != {model.text_of(subscript_indices(r)[0]) for r in stage_r}:
                    yield Finding(v.line, v.line, 0.7, float(v.dim_values[0]),
                                  f"{v.name}: {v.dim_values[0]} shared stages")
                    break

    def _helper_fills(self, model, fn, name: str, loop) -> list:
        """Stages filled by a device helper in the loop, from global memory it loaded earlier
        in the pass (``slab.store(sx[buf ^ 1], ...)`` after ``slab.load(X, ...)``): the stage
        ``name[i]`` is an argument and the helper writes through that parameter."""
        calls = [c for c in model.calls_in(fn) if loop.node.start_byte <= c.node.start_byte
                 < loop.node.end_byte]
        shared = {v.name for v in model.vars_in(fn, space="shared")}
        loaders = [c for c in calls if not any(model.array_name(a) in shared or
                                               model.root_identifier(a) in shared
                                               for a in call_args(c.node))]
        loads = any(self._helper_reads_global(model, c) for c in loaders) or any(
            a.space == "global" and not a.is_write and loop.node.start_byte <= a.node.start_byte
            < loop.node.end_byte for a in model.accesses_in(fn))
        out = []
        for c in calls:
            callee = model.function_of(c.name) or model.function_of(
                next((f for f in model.functions if f.endswith("::" + c.unqualified)), ""))
            if callee is None:
                continue
            for i, arg in enumerate(call_args(c.node)):
                if arg.type != "subscript_expression" or model.array_name(arg) != name or \
                        not self._stage_index(model, fn, arg) or i >= len(callee.params):
                    continue
                param = callee.params[i].name
                if loads and any(a.function == callee.name and a.array == param and a.is_write
                                 for a in model.accesses):
                    out.append(arg)
        return out

    @staticmethod
    def _helper_reads_global(model, call) -> bool:
        callee = model.function_of(call.name) or model.function_of(
            next((f for f in model.functions if f.endswith("::" + call.unqualified)), ""))
        if callee is None:
            return False
        pointers = {p.name for p in callee.params if p.is_pointer and "__shared__" not in
                    p.type_text}
        if callee.body is None or not pointers:
            return False
        # a read through a pointer parameter, also one the model keeps no access for
        # (__ldg(reinterpret_cast<const float4*>(X + offset)))
        return bool(pointers & model.identifiers(callee.body)) and any(
            a.function == callee.name and a.is_write for a in model.accesses)

    @staticmethod
    def _stage_index(model, fn, sub) -> bool:
        idx = subscript_indices(sub)
        if not idx:
            return False
        first = idx[0]
        return model.eval_int(first, fn) is None and not model.uses_thread_index(first)
