"""PAR-08 wavefront parallelism: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, call_args, inside, subscript_index, walk


def _wave_subtraction(model, fn, minuend: set[str], tiv: set[str], scope: Node | None) -> bool:
    """``a - b`` in ``scope`` with ``a`` from ``minuend`` (and no thread index) and ``b``
    thread-derived: the anti-diagonal coordinate ``j = d - i``."""
    index_vars = set()
    for x in walk(scope):
        if x.type == "subscript_expression":
            index_vars |= model.identifiers(subscript_index(x))
    for b in walk(scope):
        if b.type == "binary_expression" and model.text_of(b.child_by_field_name("operator")) == "-":
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            lids, rids = model.identifiers(left), model.identifiers(right)
            if lids & minuend and not lids & tiv and rids & tiv and _feeds_index(model, b, index_vars):
                return True
    return False


def _feeds_index(model, node: Node, index_vars: set[str]) -> bool:
    """``node`` sits in a subscript or initialises a variable that is used as an index."""
    p = node.parent
    while p is not None and p.type not in ("expression_statement", "declaration", "compound_statement"):
        if p.type == "subscript_argument_list":
            return True
        if p.type == "init_declarator":
            d = p.child_by_field_name("declarator")
            return d is not None and model.text_of(d) in index_vars
        if p.type == "assignment_expression":
            return model.text_of(p.child_by_field_name("left")) in index_vars
        p = p.parent
    return False


class WavefrontParallelism(Detector):
    id = "PAR-08"

    def detect(self, model):
        for launch in model.launches_of():
            loop = launch.in_loop
            kernel = model.function_of(launch.kernel)
            if loop is None or loop.var is None or kernel is None or launch.kind != "chevron":
                continue
            caller = model.function_of(launch.caller) if launch.caller else None
            wave = {loop.var}
            if caller is not None:
                wave = model.derived(caller, {loop.var}, [t for t in model.assignments(caller)
                                                           if inside(t[2], loop.node)])
            params = set()
            for i, arg in enumerate(call_args(launch.node)):
                if model.identifiers(arg) & wave and i < len(kernel.params):
                    params.add(kernel.params[i].name)
            if not params:
                continue
            tiv = model.thread_index_vars(kernel) | {"threadIdx", "blockIdx"}
            tiv -= params
            if _wave_subtraction(model, kernel, params, tiv, kernel.body):
                yield Finding(launch.line, launch.line, confidence=0.85)
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            for loop in model.loops_in(fn):
                if loop.var is None or not loop.has_sync or loop.var in tiv:
                    continue
                if _wave_subtraction(model, fn, {loop.var}, tiv - {loop.var},
                                     loop.node.child_by_field_name("body")):
                    yield Finding.at(loop.node, 0.8)
