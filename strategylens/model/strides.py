"""Stride and index algebra: an index as ``coef * threadIdx.x + rest`` (the algebra the libclang
pass shares), row-major linearisation, and the tree-sitter estimate of every access's stride."""

from __future__ import annotations

from fractions import Fraction

from tree_sitter import Node

from strategylens.model.categories import SCALAR_BYTES, THREAD_BUILTINS, VECTOR_BITS
from strategylens.model.consts import BINOPS
from strategylens.model.items import Access, Function, Macro
from strategylens.model.syntax import declarator_name, strip, subscript_indices, unparen

UNKNOWN = None  # a threadIdx.x coefficient that is not linear


def set_stride(access: Access, coef, source: str) -> None:
    """Record a threadIdx.x coefficient on an access: an int stride, a symbolic one (text) or
    unknown; a fractional coefficient (``tid / 32``) is stride 0 for the lanes of a group, and
    one over a multiple of 32 beside a whole part (``tid / 32 + lane``, 33/32) is the whole
    part, the warp's own term."""
    access.stride_source = source
    if coef is UNKNOWN:
        access.stride_tx, access.stride_expr = None, None
    elif isinstance(coef, str):
        access.stride_tx, access.stride_expr = None, coef
    else:
        access.stride_tx = int(coef) if coef.denominator == 1 else \
            round(coef) if coef.denominator % 32 == 0 else 0
        access.stride_expr = str(coef)


def combine(op: str, a, b, text_b, text_a):
    """Combine two ``(coef, const)`` pairs through a binary operator.

    ``coef`` is the coefficient of threadIdx.x (a Fraction, a symbolic str such as ``'n'``, or
    UNKNOWN when the expression is not linear in it); ``const`` the integer value when known.
    ``text_a`` / ``text_b`` give the operand texts for symbolic coefficients.
    """
    ca, cb = a[0], b[0]
    const = None
    if a[1] is not None and b[1] is not None and op in BINOPS:
        const = BINOPS[op](a[1], b[1])
    if op in ("+", "-"):
        if ca is UNKNOWN or cb is UNKNOWN:
            return (UNKNOWN, None)
        if isinstance(ca, str) or isinstance(cb, str):
            if ca == 0:
                return (cb if op == "+" else (f"-({cb})" if isinstance(cb, str) else -cb), None)
            if cb == 0:
                return (ca, None)
            return (f"{ca} {op} {cb}", None)  # symbolic: tid * n + tid -> 'n + 1'
        return (ca + cb if op == "+" else ca - cb, const)
    if op == "*":
        if ca == 0 and cb == 0:
            return (Fraction(0), const)
        if ca != 0 and cb != 0:
            return (UNKNOWN, None)
        lin, other, other_text = (a, b, text_b) if ca != 0 else (b, a, text_a)
        if lin[0] is UNKNOWN:
            return (UNKNOWN, None)
        if other[1] is not None and isinstance(lin[0], Fraction):
            return (lin[0] * other[1], None)
        if isinstance(lin[0], Fraction) and lin[0] == 1:
            return (other_text(), None)
        return (f"({lin[0]})*({other_text()})", None)
    if op in ("/", ">>"):
        if ca == 0 and cb == 0:
            return (Fraction(0), const)
        if cb != 0 or b[1] is None or b[1] == 0 or not isinstance(ca, Fraction):
            return (UNKNOWN, None)
        d = b[1] if op == "/" else (1 << b[1])
        return (ca / d, None)
    if op == "<<":
        if ca == 0 and cb == 0:
            return (Fraction(0), const)
        if cb == 0 and b[1] is not None and isinstance(ca, Fraction):
            return (ca * (1 << b[1]), None)
        return (UNKNOWN, None)
    if op in ("%", "&"):
        if ca == 0 and cb == 0:
            return (Fraction(0), const)
        if cb == 0 and b[1] is not None and isinstance(ca, Fraction):
            # lane = tid % 32, tx = tid % 16, tid & 31: within runs of `span` consecutive
            # threads the coefficient holds; spans of 8 or more are treated as linear
            span = b[1] + 1 if op == "&" else b[1]
            if span >= 8:
                return (ca, None)
        return (UNKNOWN, None)
    if op == ",":
        return b
    if ca == 0 and cb == 0:
        return (Fraction(0), const)
    return (UNKNOWN, None)


_CLAMPS = {"min", "max", "fminf", "fmaxf", "fmin", "fmax", "umin", "umax", "llmin", "llmax",
           "std::min", "std::max", "clamp", "std::clamp", "__clamp"}


def clamp_like(name: str, args: list[tuple]) -> tuple:
    """``min(x + dx, w - 1)`` style calls keep the threadIdx.x coefficient of their one
    thread-dependent argument (the clamp only bites at the edges)."""
    varying = [a for a in args if a[0] != 0]
    clamp = name in _CLAMPS or "clamp" in name.rsplit("::", 1)[-1].lower()  # lclampx(ix - 1)
    if clamp and len(varying) == 1 and varying[0][0] is not UNKNOWN:
        return (varying[0][0], None)
    return (UNKNOWN, None)


def row_major(coefs: list, dims: list[int | None]):
    """threadIdx.x coefficient of ``a[i0][i1]...`` from each index's coefficient and the array
    extents (row-major). A row index that depends on threadIdx.x with an unknown row length
    gives the symbolic ``'row'``."""
    coef = Fraction(0)
    stride = Fraction(1)
    for i in range(len(coefs) - 1, -1, -1):
        c = coefs[i]
        if c is UNKNOWN:
            return UNKNOWN
        if c != 0:
            if isinstance(c, str) or isinstance(stride, str) or isinstance(coef, str):
                if coef != 0:
                    return UNKNOWN
                coef = c if stride == 1 else (stride if c == 1 else f"({c})*({stride})")
            else:
                coef = coef + c * stride
        if i > 0:
            d = dims[i] if i < len(dims) else None
            stride = "row" if isinstance(stride, str) or d is None else stride * d
    return coef


# the 24-bit multiply intrinsics of pre-Fermi code: a product for the index algebra
MUL24 = ("__mul24", "__umul24")

# cooperative-groups members that read the thread's or block's position
CG_MEMBERS = ("thread_index", "thread_rank", "group_index", "block_index", "group_dim",
              "dim_threads", "dim_blocks", "block_rank")


def cg_member(callee: str) -> str | None:
    """The cooperative-groups position member a callee names (``tb.thread_index``,
    ``cg::this_thread_block().thread_rank``), else None.

    >>> cg_member("cg::this_thread_block().thread_rank"), cg_member("warp.shfl_down")
    ('thread_rank', None)
    """
    for sep in (".", "->", "::"):
        if sep in callee:
            last = callee.rsplit(sep, 1)[1].strip()
            return last if last in CG_MEMBERS else None
    return None


class Strides:
    """threadIdx.x coefficients of expressions and accesses."""

    def _estimate_strides(self) -> None:
        extents: dict[tuple[str | None, str], list[int | None]] = {}
        for v in self.vars:
            extents[(v.function, v.name)] = v.dim_values
        for a in self.accesses:
            f = self.function_of(a.function) if a.function else None
            if a.index_node is None:  # *p
                coef = Fraction(0)
            else:
                nodes = subscript_indices(a.node) if len(a.indices) > 1 else [a.index_node]
                dims = extents.get((a.function, a.array)) or extents.get((None, a.array)) or []
                coef = self._linearise(nodes, dims, f)
            if f is not None and coef is not UNKNOWN:
                base = self._base_offset(a.array, a.node, f)
                if base != 0:  # p = a + tid * n; p[k] walks row tid: stride n
                    coef = combine("+", (base, None), (coef, None), lambda: "?",
                                   lambda: "?")[0]
            set_stride(a, coef, "tree-sitter")

    def _base_offset(self, name: str, use: Node, fn: Function, depth: int = 0):
        """threadIdx.x coefficient of a local pointer's offset from the array it points into
        (``const float* row = a + tid * n`` gives ``'n'``); 0 for parameters and arrays."""
        if depth > 6 or not name.isidentifier():
            return Fraction(0)
        ty = self._local_types.get(fn.name, {}).get(name)
        if ty is None and any(p.name == name and p.is_pointer for p in fn.params):
            return self._parameter_bump(name, use, fn)
        if ty is None or not (ty.endswith("*") or "auto" in ty):
            return Fraction(0)
        coefs = []
        for d in self._defs_for(use, name, fn):
            if d.type == "update_expression":
                continue  # p++: the same step for every thread
            v = d.child_by_field_name("value") or d.child_by_field_name("right")
            if v is None:
                continue
            op = self.text_of(d.child_by_field_name("operator")) \
                if d.type == "assignment_expression" else "="
            if op in ("+=", "-="):
                if self.linear_tx(v, fn)[0] != 0:
                    return UNKNOWN
                continue
            coefs.append(self._pointer_offset(v, fn, depth + 1))
        if not coefs:
            return Fraction(0)
        if any(c is UNKNOWN for c in coefs) or len({str(c) for c in coefs}) != 1:
            return UNKNOWN
        return coefs[0]

    def _parameter_bump(self, name: str, use: Node, fn: Function):
        """threadIdx.x coefficient by which a pointer parameter was moved before ``use``
        (``src += row * n + 4 * threadIdx.x`` gives 4): one bump before the use counts; none
        is 0, several thread-dependent ones or a reassignment are unknown."""
        bumps = [d for d in self._defs_for(use, name, fn)
                 if d.type == "assignment_expression" and d.end_byte <= use.start_byte]
        coefs = []
        for d in bumps:
            op = self.text_of(d.child_by_field_name("operator"))
            if op not in ("+=", "-="):
                return UNKNOWN
            c = self.linear_tx(d.child_by_field_name("right"), fn)[0]
            coefs.append(c if op == "+=" or not isinstance(c, Fraction) else -c)
        moving = [c for c in coefs if c != 0]
        if not moving:
            return Fraction(0)
        return moving[0] if len(moving) == 1 else UNKNOWN

    def _pointer_offset(self, v: Node, fn: Function, depth: int):
        while v is not None:
            if v.type == "parenthesized_expression" and v.named_child_count == 1:
                v = v.named_children[0]
            elif v.type == "cast_expression":
                v = v.child_by_field_name("value")
            elif v.type == "call_expression" and self._callee_name(v)[0] in (
                    "reinterpret_cast", "static_cast", "const_cast"):
                args = v.child_by_field_name("arguments")
                v = args.named_children[0] if args is not None and args.named_child_count \
                    else None
            else:
                break
        if v is None:
            return Fraction(0)
        if v.type == "binary_expression" and self.text_of(
                v.child_by_field_name("operator")) in ("+", "-"):
            op = self.text_of(v.child_by_field_name("operator"))
            left, right = v.child_by_field_name("left"), v.child_by_field_name("right")
            base = self._pointer_offset(left, fn, depth + 1)
            return combine(op, (base, None), self.linear_tx(right, fn), lambda: "?",
                           lambda: "?")[0]
        if v.type == "pointer_expression" and v.children[0].type == "&":
            arg = v.child_by_field_name("argument")
            if arg is not None and arg.type == "subscript_expression":
                base = self._pointer_offset(arg.child_by_field_name("argument"), fn,
                                            depth + 1)
                idx = arg.child_by_field_name("indices")
                kids = idx.named_children if idx is not None else []
                if len(kids) == 1:
                    return combine("+", (base, None), self.linear_tx(kids[0], fn),
                                   lambda: "?", lambda: "?")[0]
                return UNKNOWN
            return Fraction(0)
        if v.type == "identifier":
            return self._base_offset(self.text_of(v), v, fn, depth + 1)
        return Fraction(0)

    def _linearise(self, nodes: list[Node], dims: list[int | None], f: Function | None):
        return row_major([self.linear_tx(n, f)[0] for n in nodes], dims)

    def linear_tx(self, node: Node, fn: Function | None, _depth: int = 0,
                  _env: dict | None = None, _at: Node | None = None) -> tuple:
        """``node`` as ``coef * threadIdx.x + rest``: returns ``(coef, const)`` with coef a
        Fraction, a symbolic str or UNKNOWN, and const the integer value when known. Local
        variables are followed through their assignments; function-like macros
        (``IDX(r, c)``) are expanded. (``_env`` / ``_at``: parameter values and the call site
        while inside a macro body, whose nodes belong to another parse.)"""
        if node is None or _depth > 14:
            return (UNKNOWN, None)
        if _env is None:  # memoised for nodes of this file; a deep UNKNOWN may be the limit
            key = (node.id, node.start_byte, node.type)
            hit = self._lin_memo.get(key)
            if hit is not None and (hit[0][0] is not UNKNOWN or hit[1] <= _depth):
                return hit[0]
            res = self._linear_tx(node, fn, _depth, None, _at)
            if _at is None and not self._lin_self:
                self._lin_memo[key] = (res, _depth)
            return res
        return self._linear_tx(node, fn, _depth, _env, _at)

    def _linear_tx(self, node: Node, fn: Function | None, _depth: int, _env, _at) -> tuple:
        zero = Fraction(0)
        foreign = _env is not None
        txt = (lambda n: n.text.decode("utf8", "replace") if n is not None else "") \
            if foreign else self.text_of

        def ev(n):
            return self.eval_int(txt(n), fn) if foreign else self.eval_int(n, fn)

        def lin(n):
            return self.linear_tx(n, fn, _depth + 1, _env, _at)

        t = node.type
        if t == "number_literal":
            return (zero, ev(node))
        if t == "field_expression":
            argn = node.child_by_field_name("argument")
            arg = txt(argn)
            fld = txt(node.child_by_field_name("field"))
            if arg == "threadIdx":
                return (Fraction(1) if fld == "x" else zero, None)
            if arg in THREAD_BUILTINS:
                return (zero, None)
            group = cg_member(txt(argn.child_by_field_name("function"))) \
                if argn is not None and argn.type == "call_expression" else None
            if group == "thread_index":  # tb.thread_index().x is threadIdx.x
                return (Fraction(1) if fld == "x" else zero, None)
            if group is not None:  # group_index(), group_dim(), dim_threads(): uniform
                return (zero, None)
            return (zero, None) if lin(node.child_by_field_name("argument"))[0] == 0 \
                else (UNKNOWN, None)
        if t in ("identifier", "qualified_identifier"):
            name = txt(node)
            if foreign and name in _env:
                return _env[name]
            if fn is not None and (fn.name, name) in self._lin_self:
                return (self._lin_self[(fn.name, name)], None)
            c = ev(node)
            if c is not None:
                return (zero, c)
            if fn is None:
                return (zero, None)
            defs = self._defs_for(_at or node, name, fn)
            if not defs:
                if self._lambda_param(_at or node, name):
                    return (UNKNOWN, None)  # thrust::for_each(..., [=] __device__ (int i))
                if fn.is_device and not fn.is_kernel and not foreign:
                    passed = self.param_from_callers(fn, name, _depth)
                    if passed is not None:
                        return passed  # load(p, tid): the index the callers pass
                return (zero, None)  # parameters and unknown names are uniform across threads
            coefs, own = [], []
            for d in defs:
                if d.type == "update_expression":
                    continue
                v = d.child_by_field_name("value") or d.child_by_field_name("right")
                if v is None:
                    continue
                op = self.text_of(d.child_by_field_name("operator")) \
                    if d.type == "assignment_expression" else "="
                if any(x.type == "identifier" and self.text_of(x) == name
                       for x in self.subtree(v)):
                    own.append((op, v))  # iz = nz - iz: read once the others are known
                    continue
                sub = self.linear_tx(v, fn, _depth + 1)
                if op == "=":
                    coefs.append(sub[0])
                elif sub[0] != 0:
                    return (UNKNOWN, None)
            if own:
                if not coefs or any(x is UNKNOWN for x in coefs) or len({str(x) for x in coefs}) != 1:
                    return (UNKNOWN, None)
                self._lin_self[(fn.name, name)] = coefs[0]  # the variable as the others give it
                try:
                    subs = [(op, self.linear_tx(v, fn, _depth + 1)[0]) for op, v in own]
                finally:
                    del self._lin_self[(fn.name, name)]
                if any(op != "=" and c != 0 for op, c in subs):
                    return (UNKNOWN, None)
                coefs += [c for op, c in subs if op == "="]
            if not coefs:
                return (zero, None)
            if any(x is UNKNOWN for x in coefs) or len({str(x) for x in coefs}) != 1:
                return (UNKNOWN, None)
            return (coefs[0], None)
        if t == "parenthesized_expression" and node.named_child_count == 1:
            return lin(node.named_children[0])
        if t == "update_expression":  # a[i++]: the value before or after a uniform step
            return lin(node.child_by_field_name("argument"))
        if t == "cast_expression":
            return lin(node.child_by_field_name("value"))
        if t == "unary_expression":
            op = txt(node.child_by_field_name("operator"))
            a = lin(node.child_by_field_name("argument"))
            if op == "-" and isinstance(a[0], Fraction):
                return (-a[0], None if a[1] is None else -a[1])
            if op == "+":
                return a
            return (zero, None) if a[0] == 0 else (UNKNOWN, None)
        if t == "binary_expression":
            op = txt(node.child_by_field_name("operator"))
            ln = node.child_by_field_name("left")
            rn = node.child_by_field_name("right")
            return combine(op, lin(ln), lin(rn), lambda: txt(rn), lambda: txt(ln))
        if t == "conditional_expression":
            a = lin(node.child_by_field_name("consequence"))
            b = lin(node.child_by_field_name("alternative"))
            if a[0] is UNKNOWN or str(a[0]) != str(b[0]):
                return (UNKNOWN, None)
            return (a[0], a[1] if a[1] == b[1] else None)
        if t == "call_expression":
            fnode = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            argn = args.named_children if args is not None else []
            callee = txt(fnode)
            if fnode is not None and fnode.type == "template_function" and txt(
                    fnode.child_by_field_name("name")) in ("static_cast", "reinterpret_cast") \
                    and len(argn) == 1:
                return lin(argn[0])
            m = self.macros.get(callee)
            if m is not None and m.params is not None and len(m.params) == len(argn):
                body = self._macro_body(m)
                if body is not None:  # IDX(r, c): the body with each parameter's value
                    env = {p: lin(a) for p, a in zip(m.params, argn, strict=True)}
                    return self.linear_tx(body, fn, _depth + 1, env, _at or node)
            if callee in MUL24 and len(argn) == 2:  # __umul24(a, b): a 24-bit a * b
                return combine("*", lin(argn[0]), lin(argn[1]), lambda: txt(argn[1]),
                               lambda: txt(argn[0]))
            if cg_member(callee) == "thread_rank" and not argn:
                return (Fraction(1), None)  # block.thread_rank(): threadIdx.x in a 1-D block
            if any(w in callee for w in ("rank", "lane", "thread", "atomic")):
                return (UNKNOWN, None)  # thread_rank(), __lane_id(), atomics: thread-dependent
            subs = [lin(x) for x in argn]
            if all(x[0] == 0 for x in subs):
                return (zero, ev(node))
            if not foreign and fn is not None and all(x[0] == 0 for x in subs[1:]) and \
                    self._coordinate_index(callee, argn, fn):
                return (subs[0][0], None)
            return clamp_like(callee, subs)
        if t == "subscript_expression":
            # a value loaded from memory is uniform only if its index is
            idx = node.child_by_field_name("indices")
            if idx is not None and all(lin(x)[0] == 0 for x in idx.named_children):
                return (zero, None)
            return (UNKNOWN, None)
        if t in ("sizeof_expression", "char_literal", "true", "false"):
            return (zero, ev(node))
        return (UNKNOWN, None)

    def _coordinate_index(self, callee: str, args: list[Node], fn: Function) -> bool:
        """Whether a call to an index helper from a header the file lacks takes the thread's
        x, y (and z) coordinates in that order (``idx(ix, iy, iz)``): read as the usual
        linearisation with x fastest."""
        if not self.missing_includes or callee in self.functions or callee in self.macros or \
                len(args) not in (2, 3):
            return False
        return [self.thread_axes(a, fn) for a in args] == [{"x"}, {"y"}, {"z"}][:len(args)]

    def _build_size_mask(self, node: Node, fn: Function) -> bool:
        """``K - 1`` with ``K`` a name that nothing the file sees defines and no local or
        parameter holds (a size the build supplies, ``TILE_SIZE``): the mask of a power-of-two
        run of lanes, read as at least a warp's."""
        node = strip(node)
        if node is None or node.type != "binary_expression" or \
                self.text_of(node.child_by_field_name("operator")) != "-" or \
                self.eval_int(node.child_by_field_name("right"), fn) != 1:
            return False
        k = strip(node.child_by_field_name("left"))
        name = self.text_of(k) if k is not None and k.type == "identifier" else ""
        return bool(name) and name not in self.macros and \
            all(p.name != name for p in fn.params) and not self._defs_for(k, name, fn)

    def thread_axes(self, node: Node, fn: Function, _seen: set[str] | None = None) -> set[str]:
        """The axes (``x``, ``y``, ``z``) of threadIdx and blockIdx that ``node`` reads, through
        the local variables it uses (``iy = blockIdx.y * blockDim.y + threadIdx.y`` gives y)."""
        seen = set() if _seen is None else _seen
        axes: set[str] = set()
        for x in self.subtree(node):
            if x.type == "field_expression" and self.text_of(
                    x.child_by_field_name("argument")) in ("threadIdx", "blockIdx"):
                axes.add(self.text_of(x.child_by_field_name("field")))
            elif x.type == "identifier" and self.text_of(x) not in seen:
                seen.add(self.text_of(x))
                for d in self._defs_for(x, self.text_of(x), fn):
                    v = d.child_by_field_name("value") or d.child_by_field_name("right")
                    if v is not None:
                        axes |= self.thread_axes(v, fn, seen)
        return axes

    def param_from_callers(self, fn: Function, name: str, depth: int) -> tuple | None:
        """``(coef, const)`` of parameter ``name`` of device function ``fn`` from the argument
        each call in the file passes (``load_at(x, blockIdx.x * blockDim.x + threadIdx.x)``),
        followed through callers that are helpers themselves; None when ``name`` is no value
        parameter or no call passes it; UNKNOWN when the calls disagree."""
        pos = next((i for i, p in enumerate(fn.params) if p.name == name), None)
        if pos is None or fn.params[pos].is_pointer or depth > 10:
            return None
        memo = self.__dict__.setdefault("_param_memo", {})
        key = (fn.name, name)
        if key in memo:
            return memo[key]
        memo[key] = None  # a recursive helper: uniform until shown otherwise
        found = []
        for c in self.calls:
            if c.name != fn.name or c.function is None:
                continue
            caller = self.function_of(c.function)
            args = c.node.child_by_field_name("arguments")
            argn = args.named_children if args is not None else []
            if caller is None or pos >= len(argn) or caller is fn:
                continue
            found.append(self.linear_tx(argn[pos], caller, depth + 1))
        if not found:
            res = None
        elif any(f[0] is UNKNOWN for f in found) or len({str(f[0]) for f in found}) != 1:
            res = (UNKNOWN, None)
        else:
            res = (found[0][0], found[0][1] if len({f[1] for f in found}) == 1 else None)
        memo[key] = res
        return res

    @staticmethod
    def _lambda_param(use: Node, name: str) -> bool:
        """Whether ``name`` at ``use`` is a parameter of an enclosing lambda."""
        p = use.parent
        while p is not None and p.type != "function_definition":
            if p.type == "lambda_expression":
                decl = p.child_by_field_name("declarator")
                params = decl.child_by_field_name("parameters") if decl is not None else None
                for prm in (params.named_children if params is not None else []):
                    if declarator_name(prm.child_by_field_name("declarator"))[0] == name:
                        return True
            p = p.parent
        return False

    def _macro_body(self, m: Macro) -> Node | None:
        """The parsed expression of a function-like macro's body (cached)."""
        if m.name not in self._macro_bodies:
            self._macro_bodies[m.name] = self._expr_node(m.value_text) if m.value_text else None
        return self._macro_bodies[m.name]

    # ----- readings for detectors -----------------------------------------------------------
    def coefficient_of(self, node: Node | None, var: str):
        """Coefficient of ``var`` in an index expression: an int, ``'sym'`` (a non-constant factor)
        or None when the expression is not linear in ``var``."""
        node = strip(node)
        if node is None:
            return None
        t = node.type
        if t == "identifier":
            return 1 if self.text_of(node) == var else 0
        if t in ("number_literal", "sizeof_expression"):
            return 0
        if t == "field_expression":
            return 0 if var not in self.identifiers(node) else None
        if t == "binary_expression":
            op = self.text_of(node.child_by_field_name("operator"))
            a = self.coefficient_of(node.child_by_field_name("left"), var)
            b = self.coefficient_of(node.child_by_field_name("right"), var)
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
                k = self.eval_int(other)
                if k is None or coef == "sym":
                    return "sym"
                return coef * k
            return 0 if a == 0 and b == 0 else None
        if t == "unary_expression":
            a = self.coefficient_of(node.child_by_field_name("argument"), var)
            return a
        if t in ("call_expression", "subscript_expression", "conditional_expression"):
            return 0 if var not in self.identifiers(node) else None
        return 0 if var not in self.identifiers(node) else None

    def vector_lanes(self, fn: Function, a: Access) -> bool:
        """Whether an access moving a vector (``a.cast_type``: a cast, or a load helper's
        width) through an index in scalar elements has its lanes one vector apart, so that a
        warp's vectors are contiguous: ``load_global<16>(buf, in + 4 * tid)`` on floats, or a
        stride ``VEC`` with ``constexpr int VEC = 16 / sizeof(T)``."""
        stride = a.stride_tx if a.stride_tx is not None else a.stride_expr
        if a.cast_type and a.cast_type[-1] in "248" and isinstance(stride, str) and \
                stride.isidentifier() and stride in self._helper_targs(a):
            return True  # copy_vector<T, N>(dst, src + off), lanes N elements apart
        bits = VECTOR_BITS.get(a.cast_type or "")
        if not bits or a.index_node is None:
            return False
        if isinstance(stride, str) and stride.isidentifier():
            defs = self._defs_for(a.node, stride, fn)
            v = unparen(defs[0].child_by_field_name("value")) if len(defs) == 1 else None
            return v is not None and v.type == "binary_expression" and \
                self.text_of(v.child_by_field_name("operator")) == "/" and \
                v.child_by_field_name("right").type == "sizeof_expression" and \
                self.eval_int(v.child_by_field_name("left"), fn) == bits // 8
        if not isinstance(stride, int) or stride in (0, 1):
            return False
        t = self.types.type_of(fn, a.array)
        names = {t[0]} if t is not None else set()
        if t is not None and t[0] in fn.template_params:  # T: the types it is launched with
            names = set(self.template_types(fn, t[0]) or ())
        sizes = {SCALAR_BYTES.get(x) for x in names}
        return len(sizes) == 1 and None not in sizes and stride * sizes.pop() * 8 == bits

    def _helper_targs(self, a: Access) -> set[str]:
        """Template argument texts of the helper call whose argument ``a`` is
        (``copy_vector<T, VEC>(dst, src + off)`` gives ``{'T', 'VEC'}``)."""
        p = a.node.parent
        if p is None or p.type != "argument_list" or p.parent is None or \
                p.parent.type != "call_expression":
            return set()
        f = p.parent.child_by_field_name("function")
        targs = f.child_by_field_name("arguments") if f is not None and \
            f.type == "template_function" else None
        return {self.text_of(x).strip() for x in targs.named_children} if targs else set()

    def _digit_of(self, fn: Function, node, name: str) -> bool:
        """``name % m`` with ``m`` free of thread indices: the value keeps ``name``'s coefficient
        within a warp (the taxonomy's reading of ``idx % w``, as in :meth:`warp_stride`)."""
        node = strip(node)
        if node is None or node.type != "binary_expression" or \
                self.text_of(node.child_by_field_name("operator")) != "%":
            return False
        left = strip(node.child_by_field_name("left"))
        return left is not None and self.text_of(left) == name and \
            not self.uses_thread_index(node.child_by_field_name("right"))

    def warp_stride(self, fn: Function, node, depth: int = 0):
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
            arg = self.text_of(node.child_by_field_name("argument"))
            fld = self.text_of(node.child_by_field_name("field"))
            if arg == "threadIdx":
                return 1 if fld == "x" else 0
            if arg in ("blockIdx", "blockDim", "gridDim"):
                return 0
            return 0 if not self.uses_thread_index(node) else None
        if t == "identifier":
            name = self.text_of(node)
            if name not in self.thread_index_vars(fn):
                return 0
            defs = [r for op, r in self.local_defs_op(fn, name) if op == "="][:8]
            # rem = rem % (K * D) after rem = i % (P * K * D): a mixed-radix digit taken in place
            own = [d for d in defs if name in self.identifiers(d)]
            coefs = {str(self.warp_stride(fn, d, depth + 1)) for d in defs if d not in own}
            if len(coefs) != 1 or coefs == {"None"}:
                return None  # redefined differently (or not at all): unknown
            c = coefs.pop()
            c = "sym" if c == "sym" else int(c)
            return c if all(self._digit_of(fn, d, name) for d in own) else None
        if t == "binary_expression":
            op = self.text_of(node.child_by_field_name("operator"))
            ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op in ("&", ">>") and not self.uses_thread_index(rn):
                k = self.eval_int(rn, fn)
                c = self.warp_stride(fn, ln, depth + 1)
                if op == "&" and k is not None and k >= 31 and (k + 1) & k == 0:
                    return c  # lane = tid & 31
                if op == "&" and k is None and self._build_size_mask(rn, fn):
                    return c  # tgx = tid & (TILE_SIZE - 1), TILE_SIZE from the build
                if op == ">>" and c is not None and k is not None and k >= 5:
                    return 0  # warp = tid >> 5
                return None
            if op in ("%", "/"):
                if self.uses_thread_index(rn):
                    return None
                c = self.warp_stride(fn, ln, depth + 1)
                if op == "%":
                    return c
                k = self.eval_int(rn, fn)
                if c == 0 or (c is not None and (k is None or k >= 32)):
                    return 0
                return None
            a, b = self.warp_stride(fn, ln, depth + 1), self.warp_stride(fn, rn, depth + 1)
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
                k = self.eval_int(other, fn)
                return "sym" if k is None or c == "sym" else c * k
            return 0 if a == 0 and b == 0 else None
        if t == "call_expression":
            name = self.text_of(node.child_by_field_name("function")).split("::")[-1]
            args = node.child_by_field_name("arguments")
            if args is None:
                return None
            coefs = {str(self.warp_stride(fn, x, depth + 1)) for x in args.named_children
                     if self.uses_thread_index(x)}
            if not coefs:
                return 0
            low = name.lower()
            if ("min" in low or "max" in low or "clamp" in low) and \
                    len(coefs) == 1 and coefs != {"None"}:
                c = coefs.pop()
                return "sym" if c == "sym" else int(c)
            return None
        if t == "subscript_expression":
            return 0 if not self.uses_thread_index(node) else None
        return None
