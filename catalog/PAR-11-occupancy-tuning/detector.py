"""PAR-11 occupancy tuning: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, walk


_PROP_FIELDS = {"maxThreadsPerBlock", "multiProcessorCount", "maxThreadsPerMultiProcessor",
                "maxBlocksPerMultiProcessor", "warpSize", "maxGridSize", "maxThreadsDim",
                "regsPerBlock", "regsPerMultiprocessor", "sharedMemPerBlock",
                "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
                # a library's wrapper of the SM count (ggml's devices[i].nsm, num_sms, sm_count)
                "nsm", "n_sm", "num_sms", "numSMs", "sm_count", "smCount"}
# calls that return the number of SMs through a library's device-info wrapper
_SM_COUNT_CALLS = {"getnumsms", "numsms", "getsmcount", "smcount", "getmultiprocessorcount",
                   "multiprocessorcount", "getcurrentdevicemultiprocessorcount"}


class OccupancyTuning(Detector):
    id = "PAR-11"

    def detect(self, model):
        for k in model.reachable_kernels():
            if k.launch_bounds is not None:
                node = next((n for n in walk(k.node) if model.text_of(n).startswith("__launch_bounds__")), k.node)
                yield Finding.at(node, 0.95)
        for fn in model.reachable_functions():
            for call in model.calls_in(fn):
                if call.name.startswith("cudaOccupancy"):
                    yield Finding.at(call.node, 0.9)
        for fn in model.host_only_functions():
            yield from self._device_sized(model, fn)

    @staticmethod
    def _device_sized(model, fn):
        seeds: dict[str, Node] = {}
        props = set()
        for n in walk(fn.body):
            if n.type == "declaration" and "cudaDeviceProp" in model.text_of(n.child_by_field_name("type")):
                props |= model.identifiers(n)
        for p in fn.params:
            if "cudaDeviceProp" in p.type_text:
                props.add(p.name)
        assigns = model.assignments(fn)
        for name, value, _ in assigns:
            for x in walk(value):
                if x.type == "field_expression" and model.text_of(x.child_by_field_name("field")) in _PROP_FIELDS \
                        and (model.base_name(x) in props or not props):
                    seeds.setdefault(name, x)
                elif x.type == "call_expression" and re.sub(r"[^a-z]", "", model.text_of(
                        x.child_by_field_name("function")).rsplit("::", 1)[-1].lower()) \
                        in _SM_COUNT_CALLS:
                    seeds.setdefault(name, x)
        for call in model.calls_in(fn):
            if call.name == "cudaDeviceGetAttribute" and call.args:
                name = call.args[0].lstrip("&").strip()
                if re.fullmatch(r"[A-Za-z_]\w*", name):
                    seeds.setdefault(name, call.node)
        if not seeds:
            return
        reported = set()
        for launch in model.launches_of():
            if launch.caller != fn.name:
                continue
            for expr, conf in ((launch.block, 0.85), (launch.grid, 0.65)):
                names = set(re.findall(r"[A-Za-z_]\w*", expr or ""))
                dim = model.dim3_args(fn, expr or "")
                if dim is not None:
                    for comp in dim:
                        names |= set(re.findall(r"[A-Za-z_]\w*", comp))
                for seed, node in seeds.items():
                    if names & model.derived(fn, {seed}, assigns) and id(node) not in reported:
                        reported.add(id(node))
                        yield Finding.at(node, conf)
                if any(f".{f}" in (expr or "") for f in _PROP_FIELDS):
                    yield Finding(launch.line, launch.line, confidence=conf)
