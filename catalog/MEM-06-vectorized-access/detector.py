"""MEM-06 vectorized access: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, VECTOR_BITS, line, walk
from strategylens.model.categories import VECTOR_ALIAS


class VectorizedAccess(Detector):
    id = "MEM-06"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        fns = {f.name: f for f in model.gpu_functions()}
        tab = model.types
        seen: set[int] = set()
        for a in model.accesses_in():
            fn = fns.get(a.function)
            if fn is None:
                continue
            parent = a.node.parent
            if parent is not None and parent.type == "field_expression":
                continue
            vt = model.resolve_type((a.cast_type or "").replace("const", "").replace("*", "").strip())
            conf = 0.85
            if vt not in VECTOR_BITS:
                t = tab.type_of(fn, a.array, at=a.node)
                vt = t[0] if t is not None and t[1] >= 1 else ""
                if vt and vt not in VECTOR_BITS and vt in fn.template_params:
                    # a template type: a vector type in some instantiation (posVecType = float4)
                    vecs = sorted(x for x in model.template_types(fn, vt) or () if x in VECTOR_BITS)
                    if vecs:
                        vt, conf = max(vecs, key=VECTOR_BITS.get), 0.75
            bits = VECTOR_BITS.get(vt)
            if bits is None and vt and vt not in model.type_aliases and \
                    (m := VECTOR_ALIAS.fullmatch(vt)):
                bits, conf = {"2": 64, "4": 128}[m.group(1)], 0.6  # Scalar4: float4 or double4
            if bits and a.line not in seen:
                seen.add(a.line)
                yield Finding(a.line, a.line, conf, float(bits), f"{vt} access of {a.array}")
        for fn in fns.values():
            for n in model.fn_nodes(fn, "pointer_expression"):
                if model.text_of(n.child_by_field_name("operator")) != "*" or line(n) in seen:
                    continue
                arg = n.child_by_field_name("argument")
                while arg is not None and arg.type == "parenthesized_expression" and \
                        arg.named_child_count == 1:
                    arg = arg.named_children[0]
                vt = model.resolve_type(self._cast_target(model, arg) or "")
                if vt in VECTOR_BITS and model.is_reachable(n):
                    seen.add(line(n))
                    yield Finding(line(n), line(n), 0.85, float(VECTOR_BITS[vt]),
                                  f"{vt} dereference")

    @staticmethod
    def _cast_target(model, node) -> str | None:
        """Pointee type of ``reinterpret_cast<float4*>(p)`` or ``(float4*)p``."""
        tnode = None
        if node is not None and node.type == "call_expression":
            f = node.child_by_field_name("function")
            if f is not None and f.type == "template_function" and model.text_of(
                    f.child_by_field_name("name")) in ("reinterpret_cast", "static_cast"):
                tnode = f.child_by_field_name("arguments")
        elif node is not None and node.type == "cast_expression":
            tnode = node.child_by_field_name("type")
        if tnode is None:
            return None
        for n in walk(tnode):
            if n.type in ("type_identifier", "primitive_type"):
                return model.text_of(n)
        return None
