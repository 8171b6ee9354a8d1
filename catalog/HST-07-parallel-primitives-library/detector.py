"""HST-07 parallel primitives library: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import (Call, Function, ProgramModel, call_args, is_cub_device,
                                is_thrust_algorithm, walk)


_THRUST_LIGHT = {"transform", "for_each", "for_each_n", "gather", "scatter", "tabulate",
                 "replace_if", "transform_if", "gather_if", "scatter_if"}


_HOST_POLICIES = ("thrust::host", "thrust::seq", "thrust::cpp::par", "thrust::omp::par",
                  "thrust::tbb::par", "std::execution")


def thrust_host_side(model: ProgramModel, call: Call, fn: Function | None) -> bool:
    """Whether a Thrust call runs on the host: a host/sequential policy, or iterators of a
    host_vector, std::vector or plain array."""
    args = call_args(call.node)
    if not args:
        return True
    first = model.text_of(args[0]).replace(" ", "")
    if first.startswith(_HOST_POLICIES):
        return True
    if first.startswith(("thrust::device", "thrust::cuda")):
        return False
    name = model.root_identifier(args[0])
    if name is None or fn is None or fn.body is None:
        return False
    decl_type = declared_type(model, fn, name)
    if decl_type is None:
        return False
    return any(k in decl_type for k in ("host_vector", "std::vector", "std::array"))


def declared_type(model: ProgramModel, fn: Function, name: str) -> str | None:
    """Type text of the local declaration or parameter ``name`` in ``fn`` (arrays get ``[]``)."""
    for p in fn.params:
        if p.name == name:
            return p.type_text
    for n in walk(fn.body):
        if n.type != "declaration":
            continue
        for d in n.children_by_field_name("declarator"):
            target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            core = target
            while core is not None and core.type in ("pointer_declarator", "array_declarator",
                                                     "reference_declarator"):
                core = core.child_by_field_name("declarator") or (
                    core.named_children[-1] if core.named_children else None)
            if core is not None and model.text_of(core) == name:
                ty = model.text_of(n.child_by_field_name("type"))
                if target is not None and target.type == "array_declarator":
                    ty += "[]"
                if target is not None and target.type == "pointer_declarator":
                    ty += "*"
                return ty
    return None


class ParallelPrimitivesLibrary(LineDetector):
    id = "HST-07"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in model.reachable_host_calls:
            fn = model.function_of(c.function)
            if is_cub_device(c):
                yield Finding(c.line, c.line, 0.9, note=c.name)
            elif is_thrust_algorithm(c) and not thrust_host_side(model, c, fn):
                conf = 0.7 if c.unqualified in _THRUST_LIGHT else 0.9
                yield Finding(c.line, c.line, conf, note=c.name)
