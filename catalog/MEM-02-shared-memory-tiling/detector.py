"""MEM-02 shared memory tiling: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import Function, ProgramModel, assignment_of


def kernel_has_barrier(model: ProgramModel, fn: Function) -> bool:
    return any(model.is_barrier(c) for c in model.fn_nodes(fn, "call_expression"))


class SharedMemoryTiling(Detector):
    id = "MEM-02"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            if fn.body is None or not kernel_has_barrier(model, fn):
                continue
            gnames = model.global_names(fn)
            declared = model.vars_in(fn, space="shared")
            tiles = [v for v in declared
                     if (v.dims or v.extern) and self._is_tile(model, fn, v.name, gnames)]
            sizes = [v.size_bytes if v.size_bytes else self._extern_bytes(model, fn) for v in tiles]
            total = sum(sizes) if sizes and all(sizes) else None
            for v in tiles:
                yield Finding(v.line, v.line, 0.85 if v.dims else 0.75, total,
                              f"__shared__ {v.name} loaded cooperatively and reused")
            if tiles or not any(v.extern for v in declared):
                continue
            # Pointers carved out of an extern buffer (`char* sb = (char*)(diag + k)`): the
            # tile is reached only through them.
            names = {v.name for v in declared}
            first_line: dict[str, int] = {}
            for a in sorted(model.accesses_in(fn), key=lambda a: (a.line, a.array)):
                if a.space == "shared" and a.array not in names:
                    first_line.setdefault(a.array, a.line)
            for name, ln in first_line.items():
                if self._is_tile(model, fn, name, gnames):
                    yield Finding(ln, ln, 0.7, self._extern_bytes(model, fn),
                                  f"{name}, carved from extern __shared__ memory, loaded "
                                  "cooperatively and reused")

    def _is_tile(self, model, fn, name, gnames) -> bool:
        # the tile may be loaded and read inside device helpers the kernel passes it to
        writes, reads, self_update = model.shared_array_uses(fn, name, through_calls=True)
        if self_update or not writes or not reads:
            return False
        loads, every_thread = [], []
        staged: dict[str, set[str]] = {}  # per function: register arrays loaded from global

        def staged_in(f, names) -> set[str]:
            if f.name not in staged:
                staged[f.name] = self._staged(model, f, names)
            return staged[f.name]

        for w in writes:
            rhs = assignment_of(w).child_by_field_name("right")
            wfn = model.in_function(w) or fn
            names = gnames if wfn is fn else model.global_names(wfn)
            if model.single_thread_guarded(wfn, w):
                continue
            every_thread.append(w)
            if model.uses_thread_index(w) and not model.computed(wfn, rhs) and (
                    model.reads_global(wfn, rhs, names) or
                    model.identifiers(rhs) & staged_in(wfn, names)):
                loads.append(w)
        if not loads:
            return False
        # a thread's own slots are those every thread writes; halo cells written by edge lanes
        # only (if (threadIdx.x == 0) t[ty][0] = ...) are other threads' data when read
        wtexts = {model.text_of(w) for w in every_thread}
        return any(model.text_of(r) not in wtexts or
                   self._loop_indexed(model, model.in_function(r) or fn, r) for r in reads)

    @staticmethod
    def _staged(model, fn, gnames) -> set[str]:
        """Register arrays loaded with copies of global data (``ld_reg[0..3] = A[...]``, often
        as one float4): a tile stored from them is a global copy staged through registers, as
        prefetching GEMMs do."""
        out = set()
        for a in model.accesses_in(fn):
            if a.space != "local" or not a.is_write:
                continue
            asg = assignment_of(a.node)
            rhs = asg.child_by_field_name("right") if asg is not None else None
            if rhs is not None and not model.computed(fn, rhs) and \
                    model.reads_global(fn, rhs, gnames):
                out.add(a.array)
        return out

    @staticmethod
    def _loop_indexed(model, fn, r) -> bool:
        ids = model.identifiers(r)
        for lp in model.loops_in(fn):
            if lp.var and lp.var in ids and lp.node.start_byte <= r.start_byte < lp.node.end_byte:
                return True
        return False

    @staticmethod
    def _extern_bytes(model, fn) -> int | None:
        for la in model.launches_of(fn.name):
            if la.smem:
                caller = model.function_of(la.caller) if la.caller else None
                val = model.eval_int(la.smem, caller)
                if val:
                    return val
        return None
