"""Detectors for the MEM family (memory access and reuse), MEM-01 .. MEM-10.

Each class follows the definition in the taxonomy and its catalog entry (``catalog/MEM-*``);
the docstrings say what is reported and what is deliberately left out. The small tree helpers at
the top are shared with :mod:`strategylens.detectors.cmp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import walk as iter_nodes

if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

    from strategylens.model import Access, Function, ProgramModel

LOOP_TYPES = ("for_statement", "while_statement", "do_statement", "for_range_loop")
ASSIGN_TYPES = ("assignment_expression",)
VECTOR_BITS = {
    "float2": 64, "int2": 64, "uint2": 64, "short4": 64, "ushort4": 64, "char8": 64,
    "long1": 64, "double1": 64,
    "float4": 128, "int4": 128, "uint4": 128, "double2": 128, "longlong2": 128,
    "ulonglong2": 128, "long2": 128, "ulong2": 128,
}
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
# element widths in bytes for the narrowing-cast rule of MEM-10
SCALAR_BYTES = {
    "double": 8, "long double": 16, "float": 4, "int": 4, "unsigned": 4, "unsigned int": 4,
    "int32_t": 4, "uint32_t": 4, "long": 8, "long long": 8, "int64_t": 8, "uint64_t": 8,
    "unsigned long long": 8, "size_t": 8, "short": 2, "unsigned short": 2, "int16_t": 2,
    "uint16_t": 2, "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1,
    "bool": 1, "__half": 2, "half": 2, "__nv_bfloat16": 2, "nv_bfloat16": 2,
}
CONTAINERS = {"vector", "host_vector", "device_vector", "unique_ptr", "array", "valarray"}
FLOATING = {"double", "long double", "float", "__half", "half", "__nv_bfloat16", "nv_bfloat16"}


# ---------------------------------------------------------------------------------------------
# tree helpers (also used by cmp.py)

def text(model: ProgramModel, node: Node | None) -> str:
    return model.text_of(node) if node is not None else ""


def line(node: Node) -> int:
    return node.start_point[0] + 1


def strip(node: Node | None) -> Node | None:
    """The expression without surrounding parentheses and C-style or static casts."""
    while node is not None:
        if node.type in ("parenthesized_expression", "condition_clause") and \
                node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            return node
    return node


def ancestors(node: Node, stop: Node | None = None) -> Iterator[Node]:
    p = node.parent
    while p is not None and (stop is None or p.id != stop.id):
        yield p
        p = p.parent


def enclosing_loops(node: Node, fn: Function) -> list[Node]:
    """Loop statements around ``node`` inside ``fn``, innermost first."""
    return [a for a in ancestors(node, fn.node) if a.type in LOOP_TYPES]


def body_loops(node: Node, fn: Function) -> list[Node]:
    """Loops whose body (not header) contains ``node``, innermost first."""
    out = []
    child = node
    for a in ancestors(node, fn.node):
        if a.type in LOOP_TYPES:
            body = a.child_by_field_name("body")
            if body is not None and body.start_byte <= child.start_byte < body.end_byte:
                out.append(a)
        child = a
    return out


def device_functions(model: ProgramModel) -> list[Function]:
    """Reachable kernels and device functions."""
    return [f for f in model.reachable_functions() if f.is_kernel or f.is_device]


def nodes_of(node: Node | None, *types: str) -> Iterator[Node]:
    if node is None:
        return
    for n in iter_nodes(node):
        if n.type in types:
            yield n


def fn_nodes(model: ProgramModel, fn: Function, *types: str) -> list[Node]:
    """Nodes of ``fn``'s body of the given types in source order (cached on the model)."""
    cache = model.__dict__.setdefault("_sl_fn_nodes", {})
    index = cache.get(fn.name)
    if index is None:
        index = cache[fn.name] = {}
        for n in iter_nodes(fn.body) if fn.body is not None else ():
            index.setdefault(n.type, []).append(n)
    if len(types) == 1:
        return index.get(types[0], [])
    out = [n for t in types for n in index.get(t, [])]
    out.sort(key=lambda n: n.start_byte)
    return out


def base_name(model: ProgramModel, node: Node | None) -> str | None:
    """Name of the array of a subscript or field chain (``a`` in ``a[i][j].x``)."""
    node = strip(node)
    while node is not None:
        if node.type == "identifier":
            return text(model, node)
        if node.type in ("subscript_expression", "field_expression"):
            node = strip(node.child_by_field_name("argument"))
        elif node.type == "pointer_expression":
            node = strip(node.child_by_field_name("argument"))
        elif node.type == "call_expression":  # reinterpret_cast<float4*>(p)[i]
            args = node.child_by_field_name("arguments")
            node = strip(args.named_children[0]) if args is not None and args.named_child_count else None
        else:
            return None
    return None


def subscript_indices(node: Node) -> list[Node]:
    """Index nodes of ``a[i][j]``, outermost first."""
    out: list = []
    n = node
    while n is not None and n.type == "subscript_expression":
        idx = n.child_by_field_name("indices")
        if idx is not None:
            out[:0] = idx.named_children
        n = n.child_by_field_name("argument")
    return out


def identifiers(model: ProgramModel, node: Node | None) -> set[str]:
    return {text(model, n) for n in nodes_of(node, "identifier")}


def is_sync(model: ProgramModel, call_node: Node) -> bool:
    fn = call_node.child_by_field_name("function")
    name = text(model, fn)
    return name in ("__syncthreads", "__syncthreads_count", "__syncthreads_and",
                    "__syncthreads_or", "__syncwarp") or name.endswith(".sync") or \
        name.endswith("::sync") or name.endswith("barrier_sync") or name.endswith(".arrive_and_wait")


def assignment_of(node: Node) -> Node | None:
    """The assignment whose left side is ``node`` (a subscript), if any."""
    p = node.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    if p is not None and p.type == "assignment_expression":
        left = p.child_by_field_name("left")
        if left is not None and left.id == node.id:
            return p
    return None


class TypeTable:
    """Declared types of names per function (parameters and local declarations) and globally."""

    def __init__(self, model: ProgramModel) -> None:
        self.model = model
        self._fn: dict[str, dict[str, tuple[str, int]]] = {}
        self._global: dict[str, tuple[str, int]] | None = None

    def _collect(self, root: Node, skip_functions: bool) -> dict[str, tuple[str, int]]:
        out: dict[str, tuple[str, int]] = {}
        for n in iter_nodes(root):
            if n.type not in ("declaration", "parameter_declaration", "field_declaration"):
                continue
            if skip_functions and any(a.type == "function_definition" for a in ancestors(n)):
                continue
            tnode = n.child_by_field_name("type")
            if tnode is None:
                continue
            tname = text(self.model, tnode).replace("const ", "").replace("struct ", "").strip()
            extra = 0
            head, _, arg = tname.partition("<")
            if arg.endswith(">") and head.split("::")[-1] in CONTAINERS:
                tname, extra = arg[:-1].split(",")[0].strip(), 1  # std::vector<float> -> float[]
            for d in n.children_by_field_name("declarator"):
                name, ptr = self._declarator(d)
                if name:
                    out.setdefault(name, (tname, ptr + extra))
        return out

    def _declarator(self, d: Node) -> tuple[str | None, int]:
        ptr = 0
        while d is not None:
            if d.type in ("identifier", "field_identifier"):
                return self.model.text_of(d), ptr
            if d.type in ("pointer_declarator", "array_declarator", "reference_declarator"):
                if d.type != "reference_declarator":
                    ptr += 1
            elif d.type not in ("init_declarator", "function_declarator"):
                return None, ptr  # function_declarator: "std::vector<float> h(n);" is a variable
            d = d.child_by_field_name("declarator") or (
                d.named_children[-1] if d.type == "reference_declarator" and d.named_child_count
                else None)
        return None, ptr

    def type_of(self, fn: Function | None, name: str) -> tuple[str, int] | None:
        """``(base type, pointer/array depth)`` of ``name`` as seen in ``fn``."""
        if fn is not None:
            tab = self._fn.get(fn.name)
            if tab is None:
                tab = self._fn[fn.name] = self._collect(fn.node, skip_functions=False)
            if name in tab:
                return tab[name]
        if self._global is None:
            self._global = self._collect(self.model.root, skip_functions=True)
        return self._global.get(name)


def types(model: ProgramModel) -> TypeTable:
    tab = getattr(model, "_sl_types", None)
    if tab is None:
        tab = TypeTable(model)
        model._sl_types = tab  # cached on the model for the other detectors
    return tab


def linear_coef(model: ProgramModel, node: Node | None, var: str):
    """Coefficient of ``var`` in an index expression: an int, ``'sym'`` (a non-constant factor)
    or None when the expression is not linear in ``var``."""
    node = strip(node)
    if node is None:
        return None
    t = node.type
    if t == "identifier":
        return 1 if text(model, node) == var else 0
    if t in ("number_literal", "sizeof_expression"):
        return 0
    if t == "field_expression":
        return 0 if var not in identifiers(model, node) else None
    if t == "binary_expression":
        op = text(model, node.child_by_field_name("operator"))
        a = linear_coef(model, node.child_by_field_name("left"), var)
        b = linear_coef(model, node.child_by_field_name("right"), var)
        if a is None or b is None:
            return None
        if op in ("+", "-"):
            if a == 0:
                return b if op == "+" or b == 0 else ("sym" if b == "sym" else -b)
            if b == 0:
                return a
            return "sym" if "sym" in (a, b) else (a + b if op == "+" else a - b)
        if op == "*":
            if a == 0 and b == 0:
                return 0
            if a != 0 and b != 0:
                return None
            coef, other = (a, node.child_by_field_name("right")) if a != 0 else (
                b, node.child_by_field_name("left"))
            k = model.eval_int(other)
            if k is None or coef == "sym":
                return "sym"
            return coef * k
        return 0 if a == 0 and b == 0 else None
    if t == "unary_expression":
        a = linear_coef(model, node.child_by_field_name("argument"), var)
        return a
    if t in ("call_expression", "subscript_expression", "conditional_expression"):
        return 0 if var not in identifiers(model, node) else None
    return 0 if var not in identifiers(model, node) else None


def tx_coef(model: ProgramModel, fn: Function, node, depth: int = 0):
    """Coefficient of threadIdx.x in an index where the model's linear reading gives up:
    ``idx % w`` keeps the coefficient of ``idx``, ``idx / w`` (w not a small literal) is uniform
    across a warp, ``min``/``max`` clamps keep their argument's coefficient. Returns an int,
    ``'sym'`` for a non-constant factor, or None when unknown (data-dependent)."""
    node = strip(node)
    if node is None or depth > 24:
        return None
    t = node.type
    if t in ("number_literal", "sizeof_expression", "char_literal"):
        return 0
    if t == "field_expression":
        arg = text(model, node.child_by_field_name("argument"))
        fld = text(model, node.child_by_field_name("field"))
        if arg == "threadIdx":
            return 1 if fld == "x" else 0
        if arg in ("blockIdx", "blockDim", "gridDim"):
            return 0
        return 0 if not model.uses_thread_index(node) else None
    if t == "identifier":
        name = text(model, node)
        if name not in model.thread_index_vars(fn):
            return 0
        defs = [r for op, r in local_defs_op(model, fn, name) if op == "="]
        coefs = {str(tx_coef(model, fn, d, depth + 1)) for d in defs[:8]}
        if len(coefs) != 1 or coefs == {"None"}:
            return None  # redefined differently (or not at all): unknown
        c = coefs.pop()
        return "sym" if c == "sym" else int(c)
    if t == "binary_expression":
        op = text(model, node.child_by_field_name("operator"))
        ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&", ">>") and not model.uses_thread_index(rn):
            k = model.eval_int(rn, fn)
            c = tx_coef(model, fn, ln, depth + 1)
            if op == "&" and k is not None and k >= 31 and (k + 1) & k == 0:
                return c  # lane = tid & 31
            if op == ">>" and c is not None and k is not None and k >= 5:
                return 0  # warp = tid >> 5
            return None
        if op in ("%", "/"):
            if model.uses_thread_index(rn):
                return None
            c = tx_coef(model, fn, ln, depth + 1)
            if op == "%":
                return c
            k = model.eval_int(rn, fn)
            if c == 0 or (c is not None and (k is None or k >= 32)):
                return 0
            return None
        a, b = tx_coef(model, fn, ln, depth + 1), tx_coef(model, fn, rn, depth + 1)
        if a is None or b is None:
            return None
        if op in ("+", "-"):
            if "sym" in (a, b):
                return "sym" if (a, b) != (0, "sym") or op == "+" else "sym"
            return a + b if op == "+" else a - b
        if op == "*":
            if a == 0 and b == 0:
                return 0
            if a != 0 and b != 0:
                return None
            c, other = (a, rn) if a != 0 else (b, ln)
            k = model.eval_int(other, fn)
            return "sym" if k is None or c == "sym" else c * k
        return 0 if a == 0 and b == 0 else None
    if t == "call_expression":
        name = text(model, node.child_by_field_name("function")).split("::")[-1]
        args = node.child_by_field_name("arguments")
        if args is None:
            return None
        coefs = {str(tx_coef(model, fn, x, depth + 1)) for x in args.named_children
                 if model.uses_thread_index(x)}
        if not coefs:
            return 0
        low = name.lower()
        if ("min" in low or "max" in low or "clamp" in low) and \
                len(coefs) == 1 and coefs != {"None"}:
            c = coefs.pop()
            return "sym" if c == "sym" else int(c)
        return None
    if t == "subscript_expression":
        return 0 if not model.uses_thread_index(node) else None
    return None


# ---------------------------------------------------------------------------------------------
# MEM-01

class CoalescedAccess(Detector):
    """MEM-01: global accesses whose index has stride 1 in threadIdx.x.

    Strides come from the model (libclang when the index pass ran, else the tree-sitter linear
    estimate, at lower confidence). Accesses are weighted by loop depth (an access in a loop runs
    many times); the strategy is reported on every stride-1 line when stride-1 weight is at least
    the weight of strided accesses (a fixed or symbolic stride other than 0 and 1, a field of a
    structure element, or a per-thread walk from a loaded start such as ``row_ptr[row]``) and at
    least a quarter of all non-broadcast weight (data-dependent gathers included).
    """

    id = "MEM-01"
    needs_index = True

    @staticmethod
    def _short(model: ProgramModel, loop) -> bool:
        """A loop of at most 32 trips in every template instance (``for k < BPT``)."""
        trips = [loop.trip_count] if loop.trip_count is not None else model.trip_counts(loop)
        return bool(trips) and max(trips) <= 32

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        fns = {f.name: f for f in device_functions(model)}
        loops = {lp.node.id: lp for lp in model.loops}
        unit: list[Access] = []
        w_unit = w_strided = w_unknown = 0.0
        total = 0
        sources = set()
        for a in model.accesses_in():
            if a.space != "global" or a.function not in fns:
                continue
            total += 1
            # loops with a small fixed trip count (unrolled lanes, stencil taps) do not make an
            # access dominant: only open or long loops weigh
            repeats = [n for n in body_loops(a.node, fns[a.function])
                       if n.id not in loops or not self._short(model, loops[n.id])]
            weight = 4.0 ** min(len(repeats), 3)
            parent = a.node.parent
            aos = parent is not None and parent.type == "field_expression" and \
                self._struct_element(model, fns[a.function], a)
            stride = a.stride_tx
            if stride is None and a.stride_expr is None:
                stride = self._walk_stride(model, fns[a.function], a, loops)
            elif stride is None:
                # symbolic strides from exact division (row = tid / 32 -> cols/32) are uniform
                # within a warp; take the warp-level reading when it gives a number
                mine = tx_coef(model, fns[a.function], a.index_node)
                if isinstance(mine, int):
                    stride = mine
            if stride == 1 and not aos:
                unit.append(a)
                w_unit += weight
                sources.add(a.stride_source)
            elif aos or stride == "walk" or (stride not in (0, 1) and (stride is not None or (
                    a.stride_expr not in (None, "0", "1")))):
                w_strided += weight
            elif stride is None:
                w_unknown += weight
        # stride-1 accesses must not be outweighed by strided ones, and must be a fair part of
        # the traffic (a coalesced frontier read before data-dependent adjacency walks is not)
        if not unit or w_unit < w_strided or w_unit < 0.25 * (w_unit + w_strided + w_unknown):
            return
        share = round(len(unit) / total, 3)
        base = 0.85 if sources == {"libclang"} and model.index_status == "ok" else 0.6
        conf = round(base * (0.6 + 0.4 * w_unit / (w_unit + w_strided)), 3)
        for ln in sorted({a.line for a in unit}):
            yield Finding(ln, ln, conf, share, "stride 1 in threadIdx.x")

    @staticmethod
    def _walk_stride(model, fn, a, loops):
        """Stride of an index that is a loop variable starting at a data-dependent position:
        ``'walk'`` when each thread walks its own range (init from a load such as
        ``row_ptr[row]``, step 1: consecutive lanes are far apart), 1 when the start has a
        direct lane term (``start + lane``: lanes read consecutive elements), else None."""
        ix = strip(a.index_node)
        if ix is not None and ix.type == "binary_expression" and \
                text(model, ix.child_by_field_name("operator")) in ("+", "-") and \
                model.eval_int(ix.child_by_field_name("right"), fn) is not None:
            ix = strip(ix.child_by_field_name("left"))
        if ix is None or ix.type != "identifier":
            return tx_coef(model, fn, a.index_node)
        var = text(model, ix)
        for anc in enclosing_loops(a.node, fn):
            lp = loops.get(anc.id)
            if lp is None or lp.var != var:
                continue
            init = anc.child_by_field_name("initializer")
            if init is None:
                return None
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            direct = load = False
            stack = [init]
            while stack:
                n = stack.pop()
                if n.type == "subscript_expression":
                    load = load or model.uses_thread_index(n)
                    continue
                if n.type == "identifier" and text(model, n) in tiv:
                    direct = True
                stack.extend(n.named_children)
            if direct:
                return 1
            if load and lp.step_value in (1, -1):
                return "walk"
            return None
        return tx_coef(model, fn, a.index_node)

    @staticmethod
    def _struct_element(model, fn, a) -> bool:
        t = types(model).type_of(fn, a.array)
        return t is not None and t[0] not in SCALAR_BYTES and t[0] not in VECTOR_BITS


# ---------------------------------------------------------------------------------------------
# MEM-02

def _rhs_reads_global(model, fn, rhs, global_names: set[str], depth: int = 0) -> bool:
    """Whether an expression reads global memory, directly or through one local variable
    defined before it."""
    for n in nodes_of(rhs, "subscript_expression", "pointer_expression"):
        if base_name(model, n) in global_names:
            return True
    if depth > 0 or rhs is None:
        return False
    for name in identifiers(model, rhs):
        for d in _local_defs(model, fn, name):
            if d.start_byte < rhs.start_byte and \
                    _rhs_reads_global(model, fn, d, global_names, depth + 1):
                return True
    return False


def _local_defs(model, fn, name: str) -> list[Node]:
    """Right-hand sides that define the local ``name`` in ``fn`` (initialisers, assignments)."""
    return [r for _, r in local_defs_op(model, fn, name)]


def local_defs_op(model, fn, name: str) -> list[tuple[str, Node]]:
    """``(operator, right side)`` of every definition of the local ``name`` in ``fn``."""
    cache = model.__dict__.setdefault("_sl_defs_op", {})
    tab = cache.get(fn.name)
    if tab is None:
        tab = cache[fn.name] = {}
        for n in fn_nodes(model, fn, "init_declarator", "assignment_expression"):
            if n.type == "init_declarator":
                d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
                if d is not None and d.type == "identifier" and v is not None:
                    tab.setdefault(text(model, d), []).append(("=", v))
            else:
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    tab.setdefault(text(model, left), []).append(
                        (text(model, n.child_by_field_name("operator")),
                         n.child_by_field_name("right")))
    return tab.get(name, [])


def computed(model, fn, rhs, depth: int = 0) -> bool:
    """Whether an expression computes a value rather than copying data or a literal (casts,
    parentheses, guards ``c ? a[i] : 0`` and ``make_float4`` of copies are copies)."""
    n = strip(rhs)
    if n is None:
        return False
    t = n.type
    if t in ("subscript_expression", "field_expression", "pointer_expression",
             "number_literal", "true", "false", "null", "sizeof_expression"):
        return False
    if t == "conditional_expression":
        return computed(model, fn, n.child_by_field_name("consequence"), depth) or \
            computed(model, fn, n.child_by_field_name("alternative"), depth)
    if t == "call_expression":
        name = text(model, n.child_by_field_name("function")).split("::")[-1]
        if name.startswith("make_") or name == "__ldg":
            args = n.child_by_field_name("arguments")
            return any(computed(model, fn, a, depth) for a in args.named_children) \
                if args is not None else False
        return True
    if t == "identifier":
        if depth > 0:
            return False
        return any(op != "=" or computed(model, fn, r, depth + 1)
                   for op, r in local_defs_op(model, fn, text(model, n)))
    return t in ("binary_expression", "unary_expression", "update_expression")


def single_thread_guarded(model, fn, node) -> bool:
    """Inside ``if (lane == 0)``-style code: only one thread (per warp or block) runs it."""
    for a in ancestors(node, fn.node):
        if a.type != "if_statement":
            continue
        for b in nodes_of(a.child_by_field_name("condition"), "binary_expression"):
            if text(model, b.child_by_field_name("operator")) == "==" and (
                    model.uses_thread_index(b.child_by_field_name("left")) or
                    model.uses_thread_index(b.child_by_field_name("right"))):
                return True
    return False


def global_names(model: ProgramModel, fn: Function) -> set[str]:
    """Names that refer to global memory in ``fn``: pointer parameters and __device__ globals."""
    cache = model.__dict__.setdefault("_sl_gnames", {})
    if fn.name in cache:
        return cache[fn.name]
    names = cache[fn.name] = {p.name for p in fn.params if p.is_pointer}
    names |= {v.name for v in model.vars if v.space == "device"}
    # local pointers derived from a parameter (const float* row = x + off)
    for n in fn_nodes(model, fn, "init_declarator"):
        d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        if d is not None and d.type == "pointer_declarator" and v is not None and \
                identifiers(model, v) & names:
            nm = TypeTable(model)._declarator(d)[0]
            if nm:
                names.add(nm)
    return names


def shared_array_uses(model: ProgramModel, fn: Function, name: str):
    """Writes and reads (subscript nodes) of a shared array in ``fn``, and whether any statement
    reads and writes it at once (a reduction or scan workspace)."""
    writes, reads, self_update = [], [], False
    for n in fn_nodes(model, fn, "subscript_expression"):
        if n.parent is not None and n.parent.type == "subscript_expression" and \
                n.parent.child_by_field_name("argument") is not None and \
                n.parent.child_by_field_name("argument").id == n.id:
            continue  # inner part of a[i][j]
        if base_name(model, n) != name:
            continue
        asg = assignment_of(n)
        if asg is not None:
            writes.append(n)
            op = text(model, asg.child_by_field_name("operator"))
            rhs = asg.child_by_field_name("right")
            if op != "=" or any(base_name(model, s) == name
                                for s in nodes_of(rhs, "subscript_expression")):
                self_update = True
        elif n.parent is not None and n.parent.type == "update_expression":
            writes.append(n)
            self_update = True
        else:
            reads.append(n)
    return writes, reads, self_update


def kernel_has_barrier(model: ProgramModel, fn: Function) -> bool:
    return any(is_sync(model, c) for c in fn_nodes(model, fn, "call_expression"))


class SharedMemoryTiling(Detector):
    """MEM-02: a __shared__ array filled cooperatively from global memory, a barrier, then reads
    of other threads' elements or reads inside a loop.

    Left out: reduction or scan workspaces (a statement reads and writes the array), privatised
    histograms (no global load into the array), computed intermediates (CMP-01), partial results
    written by one lane, single broadcast scalars. Intensity: bytes of the kernel's tiles.
    """

    id = "MEM-02"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            if fn.body is None or not kernel_has_barrier(model, fn):
                continue
            gnames = global_names(model, fn)
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
        writes, reads, self_update = shared_array_uses(model, fn, name)
        if self_update or not writes or not reads:
            return False
        loads = []
        for w in writes:
            rhs = assignment_of(w).child_by_field_name("right")
            if model.uses_thread_index(w) and not single_thread_guarded(model, fn, w) \
                    and not computed(model, fn, rhs) and \
                    _rhs_reads_global(model, fn, rhs, gnames):
                loads.append(w)
        if not loads:
            return False
        wtexts = {text(model, w) for w in writes}
        return any(text(model, r) not in wtexts or self._loop_indexed(model, fn, r)
                   for r in reads)

    @staticmethod
    def _loop_indexed(model, fn, r) -> bool:
        ids = identifiers(model, r)
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


# ---------------------------------------------------------------------------------------------
# MEM-03

class RegisterBlocking(Detector):
    """MEM-03: a small constant-size local array of accumulators updated at loop-constant indices
    inside a loop whose variable does not index it (the reused reduction loop).

    Left out: run-time indexed stacks and queues, windows that are filled and sorted, arrays
    written once, data-dependent counters (privatisation).
    """

    id = "MEM-03"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        loops = {(lp.node.start_byte, lp.node.end_byte): lp for lp in model.loops}
        for fn in device_functions(model):
            if fn.body is None:
                continue
            for v in model.vars_in(fn, space="register_array"):
                if not v.dims:
                    continue
                if any(d is None for d in v.dim_values):
                    # template-sized (``float acc[TM][TN]``): its size in each instantiation
                    sizes = model.instance_values(" * ".join(f"({d})" for d in v.dims), fn) or []
                    sizes = [c for c in sizes if 2 <= c <= 64]
                    if not sizes:
                        continue
                    count = max(sizes)
                else:
                    count = 1
                    for d in v.dim_values:
                        count *= d
                if not 2 <= count <= 64:
                    continue
                if self._accumulated(model, fn, v.name, loops):
                    yield Finding(v.line, v.line, 0.75, float(count),
                                  f"{v.name}: {count} accumulators in registers")

    def _accumulated(self, model, fn, name, loops) -> bool:
        for n in fn_nodes(model, fn, "assignment_expression"):
            left = n.child_by_field_name("left")
            if left is None or left.type != "subscript_expression" or base_name(model, left) != name:
                continue
            op = text(model, n.child_by_field_name("operator"))
            rhs = n.child_by_field_name("right")
            if op == "=":
                same = any(text(model, s) == text(model, left)
                           for s in nodes_of(rhs, "subscript_expression"))
                if not same:
                    continue
            elif op not in ("+=", "-=", "*=", "|=", "&=", "^="):
                continue
            idx_ids = set()
            for ix in subscript_indices(left):
                idx_ids |= identifiers(model, ix)
            enclosing = [loops.get((a.start_byte, a.end_byte)) for a in enclosing_loops(n, fn)]
            enclosing = [lp for lp in enclosing if lp is not None]
            const_vars = {lp.var for lp in enclosing if lp.var and (
                lp.trip_count is not None or lp.bound_value is not None
                or model.trip_counts(lp) is not None)}
            ok = all(i in const_vars or model.eval_int(i, fn) is not None for i in idx_ids)
            reuse = any(lp.var not in idx_ids for lp in enclosing if lp.var) or any(
                lp.var is None for lp in enclosing)
            if ok and reuse:
                return True
        return False


# ---------------------------------------------------------------------------------------------
# MEM-04

class ReadOnlyDataPath(Detector):
    """MEM-04: ``const T* __restrict__`` parameters of reachable kernels and device functions,
    ``__ldg`` loads and texture fetches.

    Left out: ``__restrict__`` without ``const``, ``const`` without ``__restrict__``, host code.
    """

    id = "MEM-04"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in device_functions(model):
            for p in fn.params:
                if p.is_pointer and p.is_const and p.is_restrict:
                    ln = self._param_line(model, fn, p.name)
                    if ln is not None:
                        yield Finding(ln, ln, 0.8, None, f"const __restrict__ {p.name}")
        for c in model.calls_in():
            f = model.function_of(c.function) if c.function else None
            if f is None or not (f.is_kernel or f.is_device):
                continue
            short = c.name.split("::")[-1]
            if c.category in ("ldg", "texture") or short.startswith("__ldg") or short in (
                    "tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex2DLayered", "texCubemap"):
                yield Finding(c.line, c.line, 0.85, None, c.name)

    @staticmethod
    def _param_line(model, fn, name) -> int | None:
        decl = fn.node.child_by_field_name("declarator")
        for n in nodes_of(decl, "parameter_declaration"):
            if name in identifiers(model, n.child_by_field_name("declarator")):
                return line(n)
        return None


# ---------------------------------------------------------------------------------------------
# MEM-05

class ConstantMemory(Detector):
    """MEM-05: a ``__constant__`` variable read by reachable device code or filled by reachable
    host code (``cudaMemcpyToSymbol``). Intensity: bytes of all such variables together."""

    id = "MEM-05"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        consts = [v for v in model.vars_in(space="constant")]
        if not consts:
            return
        used: set[str] = set()
        names = {v.name for v in consts}
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for n in fn_nodes(model, fn, "identifier"):
                nm = text(model, n)
                if nm in names and model.is_reachable(n):
                    used.add(nm)
        live = [v for v in consts if v.name in used]
        total = sum(v.size_bytes for v in live) if all(v.size_bytes for v in live) else None
        for v in live:
            yield Finding(v.line, v.line, 0.9, total, f"__constant__ {v.name}")


# ---------------------------------------------------------------------------------------------
# MEM-06

class VectorizedAccess(Detector):
    """MEM-06: loads or stores whose element type is an 8- or 16-byte vector type (a vector
    pointer or a reinterpret_cast to one). float3, and single components read through a vector
    pointer (``p[i].x``), are not vectorised accesses. Intensity: width in bits."""

    id = "MEM-06"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        fns = {f.name: f for f in device_functions(model)}
        tab = types(model)
        seen: set[int] = set()
        for a in model.accesses_in():
            fn = fns.get(a.function)
            if fn is None:
                continue
            parent = a.node.parent
            if parent is not None and parent.type == "field_expression":
                continue
            vt = (a.cast_type or "").replace("const", "").replace("*", "").strip()
            if vt not in VECTOR_BITS:
                t = tab.type_of(fn, a.array)
                vt = t[0] if t is not None and t[1] >= 1 else ""
            bits = VECTOR_BITS.get(vt)
            if bits and a.line not in seen:
                seen.add(a.line)
                yield Finding(a.line, a.line, 0.85, float(bits), f"{vt} access of {a.array}")
        for fn in fns.values():
            for n in fn_nodes(model, fn, "pointer_expression"):
                if text(model, n.child_by_field_name("operator")) != "*" or line(n) in seen:
                    continue
                arg = n.child_by_field_name("argument")
                while arg is not None and arg.type == "parenthesized_expression" and \
                        arg.named_child_count == 1:
                    arg = arg.named_children[0]
                vt = self._cast_target(model, arg)
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
            if f is not None and f.type == "template_function" and text(
                    model, f.child_by_field_name("name")) in ("reinterpret_cast", "static_cast"):
                tnode = f.child_by_field_name("arguments")
        elif node is not None and node.type == "cast_expression":
            tnode = node.child_by_field_name("type")
        if tnode is None:
            return None
        for n in iter_nodes(tnode):
            if n.type in ("type_identifier", "primitive_type"):
                return text(model, n)
        return None


# ---------------------------------------------------------------------------------------------
# MEM-07

PITCH_CALLS = {"cudaMallocPitch", "cudaMalloc3D", "cudaMemcpy2D", "cudaMemcpy2DAsync",
               "cudaMemcpy3D", "cudaMemcpy3DAsync", "cudaMalloc3DArray", "cudaMallocArray",
               "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray"}


class DataLayoutTransformation(Detector):
    """MEM-07: pitched allocations or copies, copies that split interleaved or structured data
    into separate arrays (or the reverse), and transposing copies.

    A copy is an assignment whose both sides are plain array elements (casts and parentheses
    aside). Interleaving: one index variable has a constant coefficient K > 1 on one side and 1
    on the other. Transposition: two index variables swap their unit and scaled roles. In device
    code a strided copy must split one source into several arrays, and a transposed buffer must be
    read by another kernel; otherwise it is the task itself (decimation, a transpose task).
    """

    id = "MEM-07"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for c in model.calls_in():
            if c.name in PITCH_CALLS:
                yield Finding(c.line, c.line, 0.8, None, c.name)
        seen = set()
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            device = fn.is_kernel or (fn.is_device and not fn.is_host)
            hits = []
            for n in fn_nodes(model, fn, "assignment_expression"):
                if text(model, n.child_by_field_name("operator")) != "=" or not model.is_reachable(n):
                    continue
                left = strip(n.child_by_field_name("left"))
                right = strip(n.child_by_field_name("right"))
                kind = self._relayout(model, left, right)
                if kind:
                    hits.append((n, kind, base_name(model, left), base_name(model, right)))
            for n, kind, dst, src in hits:
                if device and not self._device_relayout(model, fn, kind, dst, src, hits):
                    continue
                if line(n) not in seen:
                    seen.add(line(n))
                    yield Finding(line(n), line(n), 0.7 if kind != "transpose" else 0.6, None, kind)

    @staticmethod
    def _device_relayout(model, fn, kind, dst, src, hits) -> bool:
        """In a kernel, a strided copy is a re-layout only when it splits one source into several
        arrays (a single out[i] = in[2*i] is decimation), and a transpose only when another kernel
        then reads the transposed buffer (a transpose that is the task's output is the task)."""
        if kind == "interleaved split":
            return len({d for _, k, d, s in hits if k == kind and s == src}) >= 2
        if kind != "transpose":
            return True
        params = [p.name for p in fn.params]
        if dst not in params:
            return False
        pos = params.index(dst)
        for la in model.launches_of(fn.name):
            args = la.node.child_by_field_name("arguments")
            if args is None or pos >= args.named_child_count:
                continue
            buf = text(model, args.named_children[pos]).strip("&* ")
            for other in model.launches_of():
                if other.kernel == fn.name:
                    continue
                oargs = other.node.child_by_field_name("arguments")
                ofn = model.function_of(other.kernel)
                if oargs is None or ofn is None:
                    continue
                for i, a in enumerate(oargs.named_children):
                    if text(model, a).strip("&* ") != buf or i >= len(ofn.params):
                        continue
                    pname = ofn.params[i].name
                    if any(x.array == pname and x.is_read and not x.is_write
                           for x in model.accesses_in(ofn)):
                        return True
        return False

    def _relayout(self, model, left, right) -> str | None:
        if left is not None and right is not None and left.type == "field_expression" and \
                right.type == "subscript_expression":
            arg = strip(left.child_by_field_name("argument"))
            if arg is not None and arg.type == "subscript_expression":
                return "SoA to AoS"
        if left is not None and right is not None and left.type == "subscript_expression" and \
                right.type == "call_expression" and text(
                    model, right.child_by_field_name("function")).startswith("make_"):
            args = right.child_by_field_name("arguments")
            srcs = {base_name(model, strip(a)) for a in args.named_children
                    if strip(a) is not None and strip(a).type == "subscript_expression"}
            if len(srcs) >= 2:
                return "SoA packed into a vector type"
        if left is None or right is None or left.type != "subscript_expression":
            return None
        if right.type == "field_expression":
            arg = strip(right.child_by_field_name("argument"))
            if arg is not None and arg.type == "subscript_expression" and \
                    len(subscript_indices(left)) == 1:
                return "AoS to SoA"
            return None
        if right.type != "subscript_expression":
            return None
        li, ri = subscript_indices(left), subscript_indices(right)
        if len(li) == 2 and len(ri) == 2:
            a, b = text(model, li[0]), text(model, li[1])
            if a != b and a == text(model, ri[1]) and b == text(model, ri[0]):
                return "transpose"
            return None
        if len(li) != 1 or len(ri) != 1:
            return None
        names = identifiers(model, li[0]) & identifiers(model, ri[0])
        roles = {}
        for v in names:
            cl, cr = linear_coef(model, li[0], v), linear_coef(model, ri[0], v)
            if cl is None or cr is None:
                return None
            roles[v] = (cl, cr)
            if (cl == 1 and isinstance(cr, int) and cr > 1) or (
                    cr == 1 and isinstance(cl, int) and cl > 1):
                return "interleaved split"
        for v, (cl, cr) in roles.items():
            for w, (dl, dr) in roles.items():
                if v != w and cl == 1 and dl == "sym" and cr == "sym" and dr == 1:
                    return "transpose"
        return None


# ---------------------------------------------------------------------------------------------
# MEM-08

class BankConflictAvoidance(Detector):
    """MEM-08: padded shared arrays (last extent ``E + 1``, or an odd extent one above a multiple
    of eight such as 33) and swizzled shared indices (XOR, or ``i + (i >> 4|5)`` offsets).

    Left out: halo extents padded the same on every dimension, odd filter sizes, 1-D arrays."""

    id = "MEM-08"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            for v in model.vars_in(fn, space="shared"):
                if len(v.dims) >= 2 and self._padded(model, fn, v) and \
                        self._column_walk(model, fn, v.name):
                    yield Finding(v.line, v.line, 0.85, None, f"{v.name} padded")
        shared = {(v.function, v.name) for v in model.vars if v.space == "shared"}
        seen = set()
        for a in model.accesses_in():
            if a.space != "shared" or a.function not in model.reachable:
                continue
            if (a.function, a.array) not in shared and (None, a.array) not in shared:
                continue
            fn = model.function_of(a.function)
            if any(self._swizzled(model, fn, ix) for ix in subscript_indices(a.node)) and \
                    a.line not in seen:
                seen.add(a.line)
                yield Finding(a.line, a.line, 0.8, None, f"{a.array} swizzled index")

    @staticmethod
    def _column_walk(model, fn, name) -> bool:
        """Some access lets the thread index pick a row other than the last dimension, so lanes
        of a warp walk a column: the case padding exists for. (A DP table ``[3][N + 1]`` read
        along its rows is padded for a boundary, not for banks.)"""
        tiv = model.thread_index_vars(fn) | {"threadIdx"}
        for a in model.accesses_in(fn):
            if a.array != name:
                continue
            idxs = subscript_indices(a.node)
            if len(idxs) >= 2 and any(identifiers(model, ix) & tiv or model.uses_thread_index(ix)
                                      for ix in idxs[:-1]):
                return True
        return False

    @staticmethod
    def _padded(model, fn, v) -> bool:
        sizes = []
        for d in nodes_of(v.node, "array_declarator"):
            sizes.append(d.child_by_field_name("size"))
        sizes = [s for s in sizes if s is not None]
        if len(sizes) < 2:
            return False
        # nodes_of yields outer declarators first: the outermost array_declarator holds the
        # last written extent
        last, prev = sizes[0], sizes[1]
        lt, pt = text(model, strip(last)), text(model, strip(prev))
        s = strip(last)
        if s is not None and s.type == "binary_expression" and \
                text(model, s.child_by_field_name("operator")) == "+" and \
                model.eval_int(s.child_by_field_name("right"), fn) == 1:
            return lt != pt
        lv, pv = model.eval_int(last, fn), model.eval_int(prev, fn)
        return lv is not None and lv > 8 and lv % 2 == 1 and (lv - 1) % 8 == 0 and lv != pv

    @staticmethod
    def _swizzled(model, fn, ix) -> bool:
        for n in nodes_of(ix, "binary_expression"):
            op = text(model, n.child_by_field_name("operator"))
            if op == "^":
                return True
            if op == "+":
                a, b = strip(n.child_by_field_name("left")), strip(n.child_by_field_name("right"))
                for x, y in ((a, b), (b, a)):
                    if y is not None and y.type == "binary_expression":
                        yop = text(model, y.child_by_field_name("operator"))
                        k = model.eval_int(y.child_by_field_name("right"), fn)
                        if text(model, strip(y.child_by_field_name("left"))) == text(model, x) and (
                                (yop == ">>" and k in (4, 5)) or (yop == "/" and k in (16, 32))):
                            return True
        return False


# ---------------------------------------------------------------------------------------------
# MEM-09

ASYNC_COPY = ("memcpy_async", "__pipeline_memcpy_async", "cp_async_bulk_tensor",
              "cp_async_bulk", "cp_async", "memcpy_async_tx")


class AsyncCopyPipelining(Detector):
    """MEM-09: asynchronous copies into shared memory (``__pipeline_memcpy_async``,
    ``cuda::memcpy_async``, ``cooperative_groups::memcpy_async``, TMA, inline ``cp.async``), or a
    manually double-buffered shared array: leading extent 2-4, indexed by a non-constant,
    thread-independent stage variable, filled from global memory and read in the same loop.
    Intensity: stages."""

    id = "MEM-09"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in device_functions(model):
            if fn.body is None:
                continue
            stages = max([v.dim_values[0] for v in model.vars_in(fn, space="shared")
                          if len(v.dims) >= 2 and v.dim_values[0] in (2, 3, 4, 5, 6, 7, 8)] or [2])
            async_lines = set()
            for c in model.calls_in(fn):
                short = c.name.split("::")[-1].split(".")[-1]
                if any(short.startswith(p) for p in ASYNC_COPY):
                    async_lines.add(c.line)
            for n in fn_nodes(model, fn, "gnu_asm_expression"):
                if "cp.async" in text(model, n) and model.is_reachable(n):
                    async_lines.add(line(n))
            for ln in sorted(async_lines):
                yield Finding(ln, ln, 0.9, float(stages), "asynchronous copy to shared memory")
            if async_lines or not fn.is_kernel:
                continue
            yield from self._manual(model, fn)

    def _manual(self, model, fn) -> Iterator[Finding]:
        gnames = global_names(model, fn)
        for v in model.vars_in(fn, space="shared"):
            if len(v.dims) < 2 or v.dim_values[0] not in (2, 3, 4):
                continue
            writes, reads, _ = shared_array_uses(model, fn, v.name)
            for lp in model.loops_in(fn):
                lo, hi = lp.node.start_byte, lp.node.end_byte

                def inside(n, lo=lo, hi=hi) -> bool:
                    return lo <= n.start_byte < hi

                stage_w = [w for w in writes if inside(w) and self._stage_index(model, fn, w)
                           and _rhs_reads_global(model, fn,
                                                 assignment_of(w).child_by_field_name("right"),
                                                 gnames)]
                stage_r = [r for r in reads if inside(r) and self._stage_index(model, fn, r)]
                if stage_w and stage_r and {text(model, subscript_indices(w)[0]) for w in stage_w} \
                        != {text(model, subscript_indices(r)[0]) for r in stage_r}:
                    yield Finding(v.line, v.line, 0.7, float(v.dim_values[0]),
                                  f"{v.name}: {v.dim_values[0]} shared stages")
                    break

    @staticmethod
    def _stage_index(model, fn, sub) -> bool:
        idx = subscript_indices(sub)
        if not idx:
            return False
        first = idx[0]
        return model.eval_int(first, fn) is None and not model.uses_thread_index(first)


# ---------------------------------------------------------------------------------------------
# MEM-10

def _accumulators(model: ProgramModel, fn: Function, want: str) -> list[Node]:
    """Declarations in ``fn`` of scalars of a type containing ``want`` (``double``, ``float``)
    that a loop of ``fn`` accumulates into (``s += ...`` or ``s = s + ...``)."""
    loops = [lp.node for lp in model.loops_in(fn, all=True)]
    updated: set[str] = set()
    for n in fn_nodes(model, fn, "assignment_expression"):
        left = n.child_by_field_name("left")
        if left is None or left.type != "identifier" or not any(
                lp.start_byte <= n.start_byte < lp.end_byte for lp in loops):
            continue
        op = text(model, n.child_by_field_name("operator"))
        name = text(model, left)
        if op in ("+=", "-=", "*=") or (op == "=" and name in identifiers(
                model, n.child_by_field_name("right"))):
            updated.add(name)
    out = []
    for n in fn_nodes(model, fn, "declaration"):
        tn = n.child_by_field_name("type")
        if tn is None or want not in text(model, tn).split():
            continue
        for d in n.children_by_field_name("declarator"):
            target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            if target is not None and target.type == "identifier" and text(model, target) in updated:
                out.append(n)
                break
    return out


class ReducedPrecision(Detector):
    """MEM-10: half/bfloat16 variables and intrinsics in reachable code, and narrowing casts of
    array elements (double to float, int to char ...), the usual port of a double interface to a
    float kernel. Casts of scalars (indices) and widening casts are left out. With the task's
    reference (``model.reference``, from ``strategylens tag --task``): the reference accumulates
    in double while no reachable kernel or device function uses double at all."""

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
        if any("double" in text(model, tn).split()
               for fn in device for n in fn_nodes(model, fn, "declaration", "cast_expression",
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

        tab = types(model)
        for c in model.calls_in():
            short = c.name.split("::")[-1]
            if short.startswith(HALF_CALL_PREFIXES):
                f = emit(c.line, 0.85, c.name)
                if f:
                    yield f
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for n in fn_nodes(model, fn, "declaration"):
                tn = n.child_by_field_name("type")
                if tn is not None and text(model, tn).replace("const", "").strip() in HALF_TYPES \
                        and model.is_reachable(n):
                    f = emit(line(n), 0.8, "half-precision variable")
                    if f:
                        yield f
            for n in fn_nodes(model, fn, "assignment_expression", "init_declarator"):
                narrowed = self._implicit(model, fn, n, tab)
                if narrowed and model.is_reachable(n):
                    f = emit(line(n), 0.65, narrowed)
                    if f:
                        yield f
            for n in fn_nodes(model, fn, "cast_expression", "call_expression"):
                target, operand = self._cast_parts(model, n)
                if target is None or not model.is_reachable(n):
                    continue
                operand = strip(operand)
                if operand is None or operand.type != "subscript_expression":
                    continue
                arr = base_name(model, operand)
                t = tab.type_of(fn, arr) if arr else None
                if t is None or t[1] < 1:
                    continue
                src = t[0]
                if self._narrower(target, src):
                    f = emit(line(n), 0.7, f"{src} element cast to {target}")
                    if f:
                        yield f

    def _implicit(self, model, fn, n, tab) -> str | None:
        """``float_array[i] = double_array[j]`` or ``float v = double_array[j]``: an implicit
        narrowing of an element (no cast written)."""
        if n.type == "assignment_expression":
            if text(model, n.child_by_field_name("operator")) != "=":
                return None
            left, right = strip(n.child_by_field_name("left")), n.child_by_field_name("right")
            if left is None or left.type != "subscript_expression":
                return None
            lt = tab.type_of(fn, base_name(model, left) or "")
            target = lt[0] if lt is not None and lt[1] >= 1 else None
        else:
            d, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            decl = n.parent
            if d is None or d.type != "identifier" or decl is None or decl.type != "declaration":
                return None
            target = text(model, decl.child_by_field_name("type")).replace("const", "").strip()
            if right is not None and right.type == "argument_list":
                # std::vector<float> h(x, x + n) with x a double array: a narrowing copy
                t = tab.type_of(fn, text(model, d))
                src = [tab.type_of(fn, text(model, a)) for a in right.named_children
                       if a.type == "identifier"]
                if t is not None and t[1] >= 1 and src and all(
                        x is not None and x[1] >= 1 and self._narrower(t[0], x[0]) for x in src):
                    return f"{src[0][0]} range copied into {t[0]}"
                return None
        if right is None or right.type != "subscript_expression" or target is None:
            return None
        rt = tab.type_of(fn, base_name(model, right) or "")
        if rt is None or rt[1] < 1:
            return None
        if self._narrower(target, rt[0]):
            return f"{rt[0]} element stored as {target}"
        return None

    @staticmethod
    def _cast_parts(model, n):
        if n.type == "cast_expression":
            return (text(model, n.child_by_field_name("type")).replace("const", "").strip(),
                    n.child_by_field_name("value"))
        fnode = n.child_by_field_name("function")
        if fnode is not None and fnode.type == "template_function" and \
                text(model, fnode.child_by_field_name("name")) == "static_cast":
            targs = fnode.child_by_field_name("arguments")
            args = n.child_by_field_name("arguments")
            if targs is not None and args is not None and args.named_child_count == 1:
                return text(model, targs).strip("<> ").replace("const", "").strip(), \
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


DETECTORS = [CoalescedAccess, SharedMemoryTiling, RegisterBlocking, ReadOnlyDataPath,
             ConstantMemory, VectorizedAccess, DataLayoutTransformation, BankConflictAvoidance,
             AsyncCopyPipelining, ReducedPrecision]
