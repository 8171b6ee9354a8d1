"""PAR-09 persistent grid sync: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, call_args, walk


class PersistentGridSync(Detector):
    id = "PAR-09"

    def detect(self, model):
        for fn in model.gpu_functions():
            for call in self._grid_syncs(model, fn):
                yield Finding.at(call.node, 0.95)
            if fn.is_kernel and not any(True for _ in self._grid_syncs(model, fn)):
                for la in model.launches_of(fn.name):
                    if la.kind == "cooperative":
                        yield Finding(la.line, la.line, confidence=0.6)
            for loop, _counter in model.spin_loops(fn):
                if not model.is_reachable(loop):
                    continue
                if self._grid_target(model, fn, loop):
                    yield Finding.at(loop, 0.8)

    @staticmethod
    def _grid_syncs(model, fn):
        """Calls in ``fn`` that synchronise the whole grid (cooperative groups)."""
        grids = {name for name, value, _ in model.assignments(fn)
                 if "this_grid" in model.text_of(value)}
        grids |= {p.name for p in fn.params if "grid_group" in p.type_text}
        for n in walk(fn.body):
            if n.type == "declaration" and "grid_group" in model.text_of(n.child_by_field_name("type")):
                grids |= model.identifiers(n) - {"cg", "cooperative_groups"}
        for call in model.calls_in(fn):
            if call.category == "grid_sync":
                yield call
            elif call.name in ("cg::sync", "cooperative_groups::sync", "sync") and \
                    any(model.identifiers(a) & grids for a in call_args(call.node)):
                yield call
            elif call.name == "sync" and call.receiver and \
                    (call.receiver in grids or "this_grid" in call.receiver):
                yield call

    @staticmethod
    def _grid_target(model, fn, loop: Node) -> bool:
        cond = loop.child_by_field_name("condition")
        names = model.identifiers(cond)
        if "gridDim" in model.text_of(cond):
            return True
        gridvars = model.derived(fn, {n for n, v, _ in model.assignments(fn)
                                       if "gridDim" in model.text_of(v)})
        if names & gridvars:
            return True
        # a parameter whose argument at some call site involves gridDim
        params = [p.name for p in fn.params]
        for caller in model.reachable_functions():
            for c in model.calls_in(caller):
                if c.name != fn.name:
                    continue
                for i, a in enumerate(c.args):
                    if i < len(params) and params[i] in names and "gridDim" in a:
                        return True
        return False
