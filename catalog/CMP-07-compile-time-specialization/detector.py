"""CMP-07 compile time specialization: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, SCALAR_BYTES, line


def types_only(arg: str) -> bool:
    """A template argument that names a type (float, double, int, float4 ...)."""
    return arg.replace("unsigned", "").replace("const", "").replace("*", "").strip() in (
        set(SCALAR_BYTES) | {"float2", "float4", "double2", "int2", "int4", ""})


class CompileTimeSpecialization(Detector):
    id = "CMP-07"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        sites: dict[str, set[tuple[str, ...]]] = {}
        for la in model.launches_of():
            if la.template_args:
                sites.setdefault(la.kernel, set()).add(tuple(la.template_args))
        # every reference with explicit template arguments in reachable code: calls, and
        # kernels taken by address or returned from a picker (&k<Traits, true>, return k<4>)
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for f in model.fn_nodes(fn, "template_function"):
                if not model.is_reachable(f):
                    continue
                targs = f.child_by_field_name("arguments")
                args = [model.text_of(a) for a in targs.named_children] if targs is not None else []
                if args:
                    sites.setdefault(model.text_of(f.child_by_field_name("name")), set()).add(
                        tuple(args))
        for fn in model.gpu_functions():  # explicit instantiations (template void k<4>(...);)
            for args in model.instantiations(fn):
                if args:
                    sites.setdefault(fn.name, set()).add(tuple(args))
        done = set()
        for name, found in sites.items():
            for fn in model.functions.get(name, []):
                if not (fn.is_kernel or fn.is_device) or fn.name not in model.reachable:
                    continue
                tmpl = fn.node.parent
                if tmpl is None or tmpl.type != "template_declaration" or tmpl.id in done:
                    continue
                values = self._value_positions(tmpl)
                # an argument in a non-type position is a compile-time constant by the grammar
                # (an enumerator or constant from a header included)
                insts = {a for a in found if any(i < len(a) and not types_only(a[i])
                                                 for i in values)}
                if not insts:
                    continue
                done.add(tmpl.id)
                ln = line(tmpl)
                yield Finding(ln, ln, 0.8 if len(insts) >= 2 else 0.65, float(len(insts)),
                              f"{name}: {len(insts)} instantiation(s)")
        yield from self._left_to_callers(model, done)

    @staticmethod
    def _value_positions(tmpl) -> list[int]:
        """Positions of a template's non-type parameters (int N, bool B, an enum Order o)."""
        plist = tmpl.child_by_field_name("parameters")
        return [i for i, p in enumerate(plist.named_children if plist is not None else [])
                if p.type in ("parameter_declaration", "optional_parameter_declaration")]

    @staticmethod
    def _left_to_callers(model, done) -> Iterator[Finding]:
        """GPU code specialised by non-type template parameters that the file never
        instantiates (a library header or kernel file: its callers choose the values)."""
        if model.launches_of(all=True):
            return
        for fn in model.gpu_functions():
            if fn.body is None or not model.template_value_params(fn) or model.instantiations(fn):
                continue
            tmpl = fn.node.parent
            while tmpl is not None and tmpl.type != "translation_unit" and \
                    not (tmpl.type == "template_declaration" and
                         CompileTimeSpecialization._value_positions(tmpl)):
                tmpl = tmpl.parent
            if tmpl is None or tmpl.type != "template_declaration" or tmpl.id in done:
                continue
            done.add(tmpl.id)
            ln = line(tmpl)
            yield Finding(ln, ln, 0.6, None, f"{fn.name}: template values left to the callers "
                          "(no instantiation in the file)")
