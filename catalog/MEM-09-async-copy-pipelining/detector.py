"""MEM-09 async copy pipelining: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, assignment_of, line, subscript_indices


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
                short = c.name.split("::")[-1].split(".")[-1]
                if any(short.startswith(p) for p in ASYNC_COPY):
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
                stage_r = [r for r in reads if inside(r) and self._stage_index(model, fn, r)]
                if stage_w and stage_r and {model.text_of(subscript_indices(w)[0]) for w in stage_w} \
                        != {model.text_of(subscript_indices(r)[0]) for r in stage_r}:
                    yield Finding(v.line, v.line, 0.7, float(v.dim_values[0]),
                                  f"{v.name}: {v.dim_values[0]} shared stages")
                    break

    @staticmethod
    def _stage_index(model, fn, sub) -> bool:
        idx = subscript_indices(sub)
        if not idx:
            return False
        first = idx[0]
        return model.eval_int(first, fn) is None and not model.uses_thread_index(first)
