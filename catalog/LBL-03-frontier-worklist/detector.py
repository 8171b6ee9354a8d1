"""LBL-03 frontier worklist: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding
from strategylens.model import call_args, inside, library_call, subscript_index


def _reads_worklist(model) -> bool:
    """Some reachable kernel loads ``v = list[thread index]`` and uses ``v`` as an index."""
    for fn in model.gpu_functions():
        tiv = model.thread_index_vars(fn)
        for name, value, _ in model.assignments(fn):
            if value.type != "subscript_expression":
                continue
            idx = subscript_index(value)
            if idx is None or not (model.identifiers(idx) & tiv or "threadIdx" in model.text_of(idx)):
                continue
            if any(a.index_node is not None and name in model.identifiers(a.index_node)
                   for a in model.accesses_in(fn)):
                return True
    return False


def _iterated(model, fn) -> bool:
    """``fn`` is launched inside a host loop, or loops over rounds itself."""
    if any(la.in_loop is not None for la in model.launches_of(fn.name)):
        return True
    return any(la.in_loop is not None for la in model.launches_of())


class FrontierWorklist(Detector):
    id = "LBL-03"

    def detect(self, model):
        worklist = _reads_worklist(model)
        for fn in model.gpu_functions():
            for call in model.calls_in(fn):
                if call.category != "atomic" or not worklist:
                    continue
                args = call_args(call.node)
                if not args or not model.target_is_scalar(fn, args[0]):
                    continue
                if model.atomic_role(fn, call) in ("slot", "combine") and model.slot_writes(fn, call) \
                        and _iterated(model, fn):
                    yield Finding.at(call.node, 0.8)
        compaction = {"copy_if", "remove_if", "remove_copy_if", "partition", "stable_partition",
                      "partition_copy", "Flagged", "If"}
        for fn in model.host_only_functions():
            loops = model.loops_in(fn)
            launches = [la for la in model.launches_of() if la.caller == fn.name]
            for call in model.calls_in(fn):
                if not library_call(call, compaction):
                    continue
                for loop in loops:
                    if inside(call.node, loop.node) and any(inside(la.node, loop.node) for la in launches):
                        yield Finding.at(call.node, 0.8)
                        break
