"""LBL-04 cost binning: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import call_args, library_call, subscript_index, walk


_SORT_BY_KEY = {"sort_by_key", "stable_sort_by_key", "SortPairs", "SortPairsDescending"}


def _launch_arg_ids(model, launch) -> list[set[str]]:
    args = launch.node.child_by_field_name("arguments")
    return [model.identifiers(a) for a in (args.named_children if args is not None else [])]


def _device_produced(model, fn) -> set[str]:
    """Pointer parameters of kernel ``fn`` whose buffer another reachable kernel writes (keys
    computed on the device, such as cell ids)."""
    out = set()
    mine = model.launches_of(fn.name)
    for i, p in enumerate(fn.params):
        if not p.is_pointer:
            continue
        host_ids = set().union(*[ids[i] for la in mine for ids in [_launch_arg_ids(model, la)]
                                 if i < len(ids)]) if mine else set()
        if not host_ids:
            continue
        for la in model.launches_of():
            other = model.function_of(la.kernel)
            if other is None or other.name == fn.name:
                continue
            for j, ids in enumerate(_launch_arg_ids(model, la)):
                if j < len(other.params) and ids & host_ids and any(
                        a.is_write and a.array == other.params[j].name for a in model.accesses_in(other)):
                    out.add(p.name)
    return out


class CostBinning(Detector):
    id = "LBL-04"

    def detect(self, model):
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if library_call(call, _SORT_BY_KEY) and self._computed_keys(model, fn, call):
                    yield Finding.at(call.node, 0.8)
                elif model.sort_orders_device_work(call):  # e.g. longest jobs first
                    yield Finding.at(call.node, 0.7)
        for fn in model.gpu_functions():
            computed = {name for name, value, _ in model.assignments(fn)
                        if value.type != "subscript_expression" and value.type != "identifier"
                        and value.type != "number_literal"}
            tiv = model.thread_index_vars(fn)
            for call in model.calls_in(fn):
                if call.category != "atomic":
                    continue
                args = call_args(call.node)
                if not args or model.target_is_scalar(fn, args[0]):
                    continue
                idx_ids = set()
                for x in walk(args[0]):
                    if x.type == "subscript_expression":
                        idx_ids |= model.identifiers(subscript_index(x))
                keys = (idx_ids & computed - tiv) | (idx_ids & _device_produced(model, fn))
                if keys and model.slot_writes(fn, call):
                    yield Finding.at(call.node, 0.8)

    @staticmethod
    def _computed_keys(model, fn, call) -> bool:
        """The keys of a sort-by-key are written by a reachable kernel launched before it."""
        args = call.args
        if args and re.match(r"(thrust::)?(device|host|cuda::par|seq)\b", args[0].strip()):
            args = args[1:]
        if call.name.rsplit("::", 1)[-1].startswith("SortPairs"):
            args = args[2:]
        if not args:
            return False
        keys = set(re.findall(r"[A-Za-z_]\w*", args[0])) - {"thrust", "raw_pointer_cast", "data",
                                                            "begin", "end", "get"}
        for launch in model.launches_of():
            kernel = model.function_of(launch.kernel)
            if kernel is None or launch.line > call.line:
                continue
            node_args = launch.node.child_by_field_name("arguments")
            for i, arg in enumerate(node_args.named_children if node_args is not None else []):
                if i >= len(kernel.params) or not model.identifiers(arg) & keys:
                    continue
                p = kernel.params[i].name
                if any(a.is_write and a.array == p for a in model.accesses_in(kernel)):
                    return True
        return False
