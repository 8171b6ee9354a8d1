"""MEM-10 reduced precision: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (Function, Node, ProgramModel, SCALAR_BYTES, is_host_function, line,
                                strip)


HALF_TYPES = {"__half", "half", "__half2", "half2", "__nv_bfloat16", "__nv_bfloat162",
              "nv_bfloat16", "nv_bfloat162", "__nv_fp8_e4m3", "__nv_fp8_e5m2"}


HALF_CALL_PREFIXES = (
    "__float2half", "__half2float", "__float2bfloat16", "__bfloat162float", "__floats2half2",
    "__floats2bfloat162", "__half22float2", "__float22half2", "__bfloat1622float2",
    "__float22bfloat162", "__double2half", "__double2bfloat16", "__int2half", "__half2int",
    "__hadd", "__hsub", "__hmul", "__hfma", "__hdiv", "__hneg", "__habs", "__hmax", "__hmin",
    "__heq", "__hlt", "__hgt", "h2exp", "hexp", "hsqrt", "hrsqrt", "h2sqrt", "h2rsqrt",
    "__low2float", "__high2float", "__nv_cvt_",
)


FLOATING = {"double", "long double", "float", "__half", "half", "__nv_bfloat16", "nv_bfloat16"}


def _stored_in_array(model: ProgramModel, n: Node) -> bool:
    """The value of ``n`` is stored into an array element (``out[i] = (uint8_t)in[i]``)."""
    p = n.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    if p is None or p.type != "assignment_expression":
        return False
    left = p.child_by_field_name("left")
    return left is not None and left.type == "subscript_expression"


def _accumulators(model: ProgramModel, fn: Function, want: str) -> list[Node]:
    """Declarations in ``fn`` of scalars of a type containing ``want`` (``double``, ``float``)
    that a loop of ``fn`` accumulates into (``s += ...`` or ``s = s + ...``)."""
    loops = [lp.node for lp in model.loops_in(fn, all=True)]
    updated: set[str] = set()
    for n in model.fn_nodes(fn, "assignment_expression"):
        left = n.child_by_field_name("left")
        if left is None or left.type != "identifier" or not any(
                lp.start_byte <= n.start_byte < lp.end_byte for lp in loops):
            continue
        op = model.text_of(n.child_by_field_name("operator"))
        name = model.text_of(left)
        if op in ("+=", "-=", "*=") or (op == "=" and name in model.identifiers(
                n.child_by_field_name("right"))):
            updated.add(name)
    out = []
    for n in model.fn_nodes(fn, "declaration"):
        tn = n.child_by_field_name("type")
        if tn is None or want not in model.text_of(tn).split():
            continue
        for d in n.children_by_field_name("declarator"):
            target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            if target is not None and target.type == "identifier" and model.text_of(target) in updated:
                out.append(n)
                break
    return out


class ReducedPrecision(Detector):
    id = "MEM-10"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        yield from self._narrower_than_reference(model)
        yield from self._in_source(model)

    @staticmethod
    def _narrower_than_reference(model: ProgramModel) -> Iterator[Finding]:
        ref = getattr(model, "reference", None)
        if ref is None:
            return
        if not any(_accumulators(ref, fn, "double") for fn in ref.reachable_functions()):
            return
        device = [fn for fn in model.reachable_functions() if fn.is_kernel or fn.is_device]
        if any("double" in model.text_of(tn).split()
               for fn in device for n in model.fn_nodes(fn, "declaration", "cast_expression",
                                                   "parameter_declaration")
               for tn in [n.child_by_field_name("type")] if tn is not None):
            return  # the kernels keep double somewhere: not a wholesale narrowing
        for fn in device:
            for n in _accumulators(model, fn, "float"):
                if model.is_reachable(n):
                    yield Finding(line(n), line(n), 0.6, None,
                                  "the reference accumulates in double; the kernels only in float")

    def _in_source(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()

        def emit(ln, conf, note):
            if ln not in seen:
                seen.add(ln)
                return Finding(ln, ln, conf, None, note)
            return None

        tab = model.types
        for c in model.calls_in():
            short = c.name.split("::")[-1]
            if short.startswith(HALF_CALL_PREFIXES):
                f = emit(c.line, 0.85, c.name)
                if f:
                    yield f
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for n in model.fn_nodes(fn, "declaration"):
                tn = n.child_by_field_name("type")
                if tn is not None and model.text_of(tn).replace("const", "").strip() in HALF_TYPES \
                        and model.is_reachable(n):
                    f = emit(line(n), 0.8, "half-precision variable")
                    if f:
                        yield f
            for n in model.fn_nodes(fn, "assignment_expression", "init_declarator"):
                narrowed = self._implicit(model, fn, n, tab)
                if narrowed and model.is_reachable(n):
                    f = emit(line(n), 0.65, narrowed)
                    if f:
                        yield f
            for n in model.fn_nodes(fn, "cast_expression", "call_expression"):
                target, operand = self._cast_parts(model, n)
                if target is None or not model.is_reachable(n):
                    continue
                operand = strip(operand)
                if operand is None or operand.type != "subscript_expression":
                    continue
                arr = model.array_name(operand)
                t = tab.type_of(fn, arr) if arr else None
                if t is None or t[1] < 1:
                    continue
                src = t[0]
                if src not in FLOATING and is_host_function(fn) and not _stored_in_array(model, n):
                    continue  # one host integer narrowed (a setting), not data packed
                if self._narrower(target, src):
                    f = emit(line(n), 0.7, f"{src} element cast to {target}")
                    if f:
                        yield f

    def _implicit(self, model, fn, n, tab) -> str | None:
        """``float_array[i] = double_array[j]`` or ``float v = double_array[j]``: an implicit
        narrowing of an element (no cast written)."""
        if n.type == "assignment_expression":
            if model.text_of(n.child_by_field_name("operator")) != "=":
                return None
            left, right = strip(n.child_by_field_name("left")), n.child_by_field_name("right")
            if left is None or left.type != "subscript_expression":
                return None
            lt = tab.type_of(fn, model.array_name(left) or "")
            target = lt[0] if lt is not None and lt[1] >= 1 else None
        else:
            d, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            decl = n.parent
            if d is None or d.type != "identifier" or decl is None or decl.type != "declaration":
                return None
            target = model.text_of(decl.child_by_field_name("type")).replace("const", "").strip()
            if right is not None and right.type == "argument_list":
                # std::vector<float> h(x, x + n) with x a double array: a narrowing copy
                t = tab.type_of(fn, model.text_of(d))
                src = [tab.type_of(fn, model.text_of(a)) for a in right.named_children
                       if a.type == "identifier"]
                if t is not None and t[1] >= 1 and src and all(
                        x is not None and x[1] >= 1 and self._narrower(t[0], x[0]) for x in src):
                    return f"{src[0][0]} range copied into {t[0]}"
                return None
        if right is None or right.type != "subscript_expression" or target is None:
            return None
        rt = tab.type_of(fn, model.array_name(right) or "")
        if rt is None or rt[1] < 1:
            return None
        if self._narrower(target, rt[0]):
            return f"{rt[0]} element stored as {target}"
        return None

    @staticmethod
    def _cast_parts(model, n):
        if n.type == "cast_expression":
            return (model.text_of(n.child_by_field_name("type")).replace("const", "").strip(),
                    n.child_by_field_name("value"))
        fnode = n.child_by_field_name("function")
        if fnode is not None and fnode.type == "template_function" and \
                model.text_of(fnode.child_by_field_name("name")) == "static_cast":
            targs = fnode.child_by_field_name("arguments")
            args = n.child_by_field_name("arguments")
            if targs is not None and args is not None and args.named_child_count == 1:
                return model.text_of(targs).strip("<> ").replace("const", "").strip(), \
                    args.named_children[0]
        return None, None

    @staticmethod
    def _narrower(target: str, src: str) -> bool:
        tb, sb = SCALAR_BYTES.get(target), SCALAR_BYTES.get(src)
        if tb is None or sb is None or tb >= sb:
            return False
        # double -> float/half, or integer data packed into 8 or 16 bits; not int -> float and
        # not 64-bit indices narrowed to int
        if src in FLOATING:
            return target in FLOATING
        return tb <= 2
