"""Index analysis on libclang: the stride in ``threadIdx.x`` of each array access.

The file is parsed by libclang in CUDA device mode (macros expanded, declarations resolved). The
fast path used here skips CUDA's and the C++ library's headers (``-nocudainc -nostdinc``) and
pre-includes a small prelude that declares the CUDA qualifiers, the builtin index variables and the
common vector types, so a file parses in a few milliseconds; the file's own folder is on the
include path, so macros from its local headers expand. Skipped headers and unknown names become
recoverable clang errors (``IndexResult.missing_headers`` / ``errors``), not failures.

For each ``ARRAY_SUBSCRIPT_EXPR`` in device code the index is linearised as
``coef * threadIdx.x + rest`` following local variables through their assignments; multi-
dimensional arrays with known extents are linearised row-major. The coefficient is attached to
the matching :class:`strategylens.model.items.Access` (``stride_tx``, ``stride_expr``,
``stride_source='libclang'``); accesses libclang does not see keep the tree-sitter estimate.

``model.index_status`` is ``'ok'``, ``'unavailable: <why>'`` (libclang missing) or
``'failed: <why>'`` (the parse gave no translation unit); MEM-01 / AP-03 detectors lower their
confidence when it is not ``'ok'``.
"""

from __future__ import annotations

import ctypes
import glob
import os
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from strategylens.model.strides import (MUL24, UNKNOWN, clamp_like, combine, row_major,
                                        set_stride)

if TYPE_CHECKING:  # pragma: no cover
    from strategylens.model.program import ProgramModel

try:  # libclang is a pinned dependency, but tagging must survive without it
    import clang.cindex as ci
except Exception as exc:  # pragma: no cover - exercised by monkeypatching in tests
    ci = None
    _IMPORT_ERROR = f"libclang not importable ({exc})"
else:
    _IMPORT_ERROR = ""

PRELUDE = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
typedef unsigned long size_t;
struct __sl_uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z;
  __host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
extern const __device__ __sl_uint3 threadIdx;
extern const __device__ __sl_uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef int cudaError_t;
extern "C" int __cudaPushCallConfiguration(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0);
extern "C" int cudaConfigureCall(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0);
#define __SL_VEC(T, N) struct N##1 { T x; }; struct N##2 { T x, y; }; \
  struct N##3 { T x, y, z; }; struct N##4 { T x, y, z, w; };
__SL_VEC(float, float) __SL_VEC(double, double) __SL_VEC(int, int) __SL_VEC(unsigned, uint)
__SL_VEC(char, char) __SL_VEC(unsigned char, uchar) __SL_VEC(short, short)
__SL_VEC(long long, longlong)
struct __half { unsigned short x; }; struct __half2 { __half x, y; }; typedef __half half;
struct __nv_bfloat16 { unsigned short x; };
__device__ void __syncthreads(); __device__ void __syncwarp(unsigned m = 0xffffffff);
template <class T> __host__ __device__ T min(T a, T b);
template <class T> __host__ __device__ T max(T a, T b);
template <class T> __device__ T __ldg(const T* p);
"""

# calls whose value differs between threads even with uniform arguments (thread_rank, laneid,
# the old value an atomic returns)
_THREAD_WORDS = ("rank", "lane", "thread", "warp_id", "laneid", "atomic")


@dataclass
class IndexResult:
    """What the libclang pass saw in one file."""

    matched: int = 0          # model accesses given a libclang stride
    seen: int = 0             # device-code subscripts libclang saw
    errors: list[str] = field(default_factory=list)  # clang errors (first few)
    missing_headers: list[str] = field(default_factory=list)  # not read in the fast path


_STATE: dict = {}


def _setup() -> tuple[ci.Index, list[str]] | str:
    """The process-wide Index and compiler arguments, or why libclang is unavailable."""
    if "index" in _STATE:
        return _STATE["index"], _STATE["args"]
    if ci is None:
        return _IMPORT_ERROR
    try:
        index = ci.Index.create()
    except Exception as exc:  # the shared library did not load
        return f"libclang not loadable ({exc})"
    args = ["-x", "cuda", "-std=c++17", "--cuda-gpu-arch=sm_90", "--cuda-device-only",
            "-nocudainc", "-nocudalib", "-nostdinc", "-nostdinc++", "-fno-spell-checking", "-w",
            "-ferror-limit=0"]
    rd = resource_dir()
    if rd:
        args += ["-resource-dir", rd]
    folder = tempfile.mkdtemp(prefix="strategylens-clang-")
    prelude = os.path.join(folder, "strategylens_prelude.h")
    with open(prelude, "w") as fh:
        fh.write(PRELUDE)
    args += ["-include", prelude]
    lib = ci.conf.lib
    for fname, argtypes, restype in [
            ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_getBinaryOperatorKindSpelling", [ctypes.c_int], ci._CXString),
            ("clang_getUnaryOperatorKindSpelling", [ctypes.c_int], ci._CXString),
            ("clang_Cursor_Evaluate", [ci.Cursor], ctypes.c_void_p),
            ("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int),
            ("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong),
            ("clang_EvalResult_dispose", [ctypes.c_void_p], None)]:
        f = getattr(lib, fname)
        f.argtypes, f.restype = argtypes, restype
    _STATE.update(index=index, args=args, bin={}, un={})
    return index, args


def resource_dir() -> str | None:
    """clang's resource directory from the clang-tidy wheel (libclang's wheel lacks it)."""
    try:
        import clang_tidy
    except ImportError:
        return None
    hits = glob.glob(os.path.join(os.path.dirname(clang_tidy.__file__), "data", "lib", "clang",
                                  "*"))
    return hits[0] if hits else None


def _binop(c) -> str:
    k = ci.conf.lib.clang_getCursorBinaryOperatorKind(c)
    cache = _STATE["bin"]
    if k not in cache:
        cache[k] = ci._CXString.from_result(ci.conf.lib.clang_getBinaryOperatorKindSpelling(k))
    return cache[k]


def _unop(c) -> str:
    k = ci.conf.lib.clang_getCursorUnaryOperatorKind(c)
    cache = _STATE["un"]
    if k not in cache:
        cache[k] = ci._CXString.from_result(ci.conf.lib.clang_getUnaryOperatorKindSpelling(k))
    return cache[k]


def _int_value(c) -> int | None:
    lib = ci.conf.lib
    res = lib.clang_Cursor_Evaluate(c)
    if not res:
        return None
    try:
        if lib.clang_EvalResult_getKind(res) == 1:  # CXEval_Int
            return int(lib.clang_EvalResult_getAsLongLong(res))
        return None
    finally:
        lib.clang_EvalResult_dispose(res)


def annotate(model: ProgramModel) -> IndexResult | None:
    """Parse ``model.source`` with libclang and attach strides to ``model.accesses``.

    Sets ``model.index_status`` and ``model.index`` (an :class:`IndexResult`); never raises for
    a bad file.
    """
    setup = _setup()
    if isinstance(setup, str):
        model.index_status = f"unavailable: {setup}"
        return None
    index, args = setup
    name = "strategylens_input.cu"
    folder = os.path.dirname(os.path.abspath(model.path))
    if os.path.isfile(model.path):
        args = args + ["-I" + folder]  # the file's own headers (#include "kernels.cuh")
    try:
        tu = index.parse(name, args=args, unsaved_files=[(name, model.text)])
    except ci.TranslationUnitLoadError as exc:
        model.index_status = f"failed: libclang could not parse the file ({exc})"
        return None
    result = IndexResult()
    for d in tu.diagnostics:
        if d.severity < 3 or d.location.file is None or d.location.file.name != name:
            continue
        if d.spelling.endswith("file not found"):  # expected: CUDA and C++ headers are skipped
            result.missing_headers.append(d.spelling.split("'")[1] if "'" in d.spelling
                                          else d.spelling)
        elif len(result.errors) < 20:
            result.errors.append(f"line {d.location.line}: {d.spelling}")
    walker = _Walker(model, name)
    for c in tu.cursor.get_children():
        if c.location.file is None or c.location.file.name != name:
            continue
        walker.top(c)
    by_pos: dict[tuple[int, int], object] = {}
    for a in model.accesses:
        by_pos[(a.line, a.node.start_point[1] + 1)] = a
    for (line, col, array), coef in walker.found:
        result.seen += 1
        a = by_pos.get((line, col))
        if a is None or (a.array != array and not a.array.endswith(("." + array,
                                                                    "->" + array))):
            continue
        if coef is UNKNOWN and a.stride_tx not in (None, 0):
            # clang could not read it (a cooperative-groups type from a header it lacks) where
            # the tree-sitter reading found a thread-dependent linear index: keep that
            continue
        set_stride(a, coef, "libclang")
        result.matched += 1
    model.index = result
    model.index_status = "ok"
    return result


class _Walker:
    """Finds subscripts in device functions and linearises their indices."""

    def __init__(self, model: ProgramModel, name: str) -> None:
        self.model = model
        self.name = name
        self.found: list[tuple[tuple[int, int, str], object]] = []
        self.defs: dict[int, list] = {}  # var decl hash -> defining expressions
        self.fn_name: str | None = None
        K = ci.CursorKind
        self.K = K
        self.wrappers = {K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR,
                         K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
                         K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR}
        self.fn_kinds = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD}

    def top(self, c) -> None:
        K = self.K
        if c.kind in self.fn_kinds:
            self.function(c)
        elif c.kind in (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE,
                        K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            for x in c.get_children():
                if x.location.file is not None and x.location.file.name == self.name:
                    self.top(x)

    def function(self, fn) -> None:
        K = self.K
        children = list(fn.get_children())
        device = any(x.kind in (K.CUDAGLOBAL_ATTR, K.CUDADEVICE_ATTR) for x in children)
        body = next((x for x in children if x.kind == K.COMPOUND_STMT), None)
        if not device or body is None:
            return
        self.fn_name = fn.spelling
        self.defs = {}
        self.memo = {}
        subs = []
        stack = [body]
        while stack:
            n = stack.pop()
            k = n.kind
            if k == K.VAR_DECL:
                init = [x for x in n.get_children() if x.kind not in (
                    K.TYPE_REF, K.CUDASHARED_ATTR, K.CUDACONSTANT_ATTR, K.TEMPLATE_REF,
                    K.NAMESPACE_REF)]
                if init:
                    self.defs.setdefault(n.hash, []).append(("=", init[-1]))
                elif self._has_initialiser(n):
                    # an initialiser clang could not type (e.g. tile.thread_rank() on an
                    # undeclared cooperative-groups type): unknown, not uniform
                    self.defs.setdefault(n.hash, []).append(("=", None))
            elif k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                kids = list(n.get_children())
                if len(kids) == 2:
                    op = _binop(n)
                    if op.endswith("=") and op not in ("==", "!=", "<=", ">="):
                        ref = self._strip(kids[0])
                        if ref.kind == K.DECL_REF_EXPR and ref.referenced is not None:
                            self.defs.setdefault(ref.referenced.hash, []).append((op, kids[1]))
            elif k == K.ARRAY_SUBSCRIPT_EXPR:
                subs.append(n)
            stack.extend(n.get_children())
        inner = set()  # the a[i] of a[i][j] is handled with its outer subscript
        for o in subs:
            base = next(iter(o.get_children()), None)
            if base is not None:
                b = self._strip(base)
                if b.kind == K.ARRAY_SUBSCRIPT_EXPR:
                    inner.add(b.hash)
        for s in subs:
            if s.hash in inner:
                continue
            self.subscript(s)

    def _strip(self, c):
        while c.kind in self.wrappers:
            kids = [x for x in c.get_children() if x.kind != self.K.TYPE_REF]
            if len(kids) != 1:
                break
            c = kids[0]
        return c

    def subscript(self, s) -> None:
        K = self.K
        indices = []
        node = s
        while node.kind == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(node.get_children())
            if len(kids) != 2:
                return
            indices.insert(0, kids[1])
            node = self._strip(kids[0])
        base = node
        if base.kind not in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            return
        array = base.spelling
        dims = self._dims(base, len(indices))
        coef = row_major([self.lin(x, 0)[0] for x in indices], dims)
        if coef is not UNKNOWN and base.kind == K.DECL_REF_EXPR:
            off = self._ptr_base(base, 0)
            if off != 0:  # p = a + tid * n; p[k] walks row tid
                coef = combine("+", (off, None), (coef, None), lambda: "?", lambda: "?")[0]
        loc = s.extent.start
        if loc.file is None or loc.file.name != self.name:
            return
        self.found.append(((loc.line, loc.column, array), coef))

    def _dims(self, base, n: int) -> list[int | None]:
        """Extents of each dimension of the base array (None when unknown)."""
        t = base.type
        dims: list[int | None] = []
        for _ in range(n):
            if t.kind == ci.TypeKind.CONSTANTARRAY:
                dims.append(t.get_array_size())
                t = t.get_array_element_type()
            else:
                dims.append(None)
                try:
                    t = t.get_array_element_type()
                except Exception:
                    break
        if None in dims:  # template-sized arrays: take the model's folded extents
            for v in self.model.vars:
                if v.name == base.spelling and v.function == self.fn_name and \
                        len(v.dim_values) == n:
                    dims = [d if d is not None else v.dim_values[i] for i, d in enumerate(dims)]
        return dims

    def _text(self, c) -> str:
        a, b = c.extent.start, c.extent.end
        if a.file is not None and a.file.name == self.name and b.offset > a.offset:
            return self.model.source[a.offset:b.offset].decode("utf8", "replace")
        return " ".join(t.spelling for t in c.get_tokens()) or "?"

    def lin(self, c, depth: int):
        """(coef, const) of ``c`` as coef * threadIdx.x + rest."""
        key = c.hash
        hit = self.memo.get(key)
        # an UNKNOWN found deep in a chain may only be the depth limit: reuse it only as deep
        if hit is not None and (hit[0][0] is not UNKNOWN or hit[1] <= depth):
            return hit[0]
        res = self._lin(c, depth)
        self.memo[key] = (res, depth)
        return res

    def _lin(self, c, depth: int):
        K = self.K
        if depth > 16:
            return (UNKNOWN, None)
        k = c.kind
        if k in self.wrappers:
            kids = [x for x in c.get_children() if x.kind != K.TYPE_REF]
            if len(kids) == 1:
                return self.lin(kids[0], depth)  # wrappers do not count towards the depth
            if len(kids) > 1 and kids[0].kind == K.DECL_REF_EXPR:
                # a call clang could not resolve (recovery expression): callee, then arguments
                subs = [self.lin(a, depth + 1) for a in kids[1:]]
                callee = kids[0].spelling or next(
                    (x.spelling for x in kids[0].get_children()), "")
                if callee in MUL24 and len(subs) == 2:
                    return combine("*", subs[0], subs[1], lambda: "?", lambda: "?")
                if any(w in callee for w in _THREAD_WORDS):
                    return (UNKNOWN, None)
                if all(x[0] == 0 for x in subs):
                    return (Fraction(0), None)
                return clamp_like(callee, subs)
            return (UNKNOWN, None)
        if k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR):
            return (Fraction(0), _int_value(c))
        if k == K.MEMBER_REF_EXPR:
            kids = list(c.get_children())
            base = self._strip(kids[0]) if kids else None
            if base is not None and base.kind == K.DECL_REF_EXPR and \
                    base.spelling == "threadIdx":
                return (Fraction(1) if c.spelling == "x" else Fraction(0), None)
            if base is not None and base.kind == K.DECL_REF_EXPR and base.spelling in (
                    "blockIdx", "blockDim", "gridDim"):
                return (Fraction(0), None)
            return (Fraction(0), None) if self._uniform_member(c) else (UNKNOWN, None)
        if k == K.DECL_REF_EXPR:
            ref = c.referenced
            v = _int_value(c)
            if v is not None:
                return (Fraction(0), v)
            if ref is None:
                return (Fraction(0), None)
            if ref.kind == K.VAR_DECL and ref.type.is_const_qualified():
                init = [x for x in ref.get_children() if x.kind not in (K.TYPE_REF,)]
                v = _int_value(init[-1]) if init else None
                if v is not None:
                    return (Fraction(0), v)
            if ref.kind == K.VAR_DECL:
                defs = self.defs.get(ref.hash)
                if not defs:
                    return (Fraction(0), None)
                coefs = []
                for op, e in defs:
                    sub = self.lin(e, depth + 1) if e is not None else (UNKNOWN, None)
                    if op == "=":
                        coefs.append(sub[0])
                    elif sub[0] != 0:
                        return (UNKNOWN, None)
                if not coefs:
                    return (Fraction(0), None)
                if any(x is UNKNOWN for x in coefs) or len({str(x) for x in coefs}) != 1:
                    return (UNKNOWN, None)
                return (coefs[0], None)
            if ref.kind == K.PARM_DECL and self.fn_name:
                fn = self.model.function_of(self.fn_name)
                if fn is not None and fn.is_device and not fn.is_kernel:
                    passed = self.model.param_from_callers(fn, ref.spelling, depth)
                    if passed is not None:
                        return passed  # the index the callers pass (tree-sitter's reading)
            return (Fraction(0), None)
        if k == K.UNARY_OPERATOR:
            kids = list(c.get_children())
            if len(kids) != 1:
                return (UNKNOWN, None)
            op = _unop(c)
            a = self.lin(kids[0], depth + 1)
            if op == "-" and isinstance(a[0], Fraction):
                return (-a[0], None if a[1] is None else -a[1])
            if op == "+":
                return a
            return (Fraction(0), None) if a[0] == 0 else (UNKNOWN, None)
        if k == K.BINARY_OPERATOR:
            kids = list(c.get_children())
            if len(kids) != 2:
                return (UNKNOWN, None)
            op = _binop(c)
            return combine(op, self.lin(kids[0], depth + 1), self.lin(kids[1], depth + 1),
                           lambda: self._text(kids[1]), lambda: self._text(kids[0]))
        if k == K.CONDITIONAL_OPERATOR:
            kids = list(c.get_children())
            if len(kids) != 3:
                return (UNKNOWN, None)
            a, b = self.lin(kids[1], depth + 1), self.lin(kids[2], depth + 1)
            if a[0] is UNKNOWN or str(a[0]) != str(b[0]):
                return (UNKNOWN, None)
            return (a[0], a[1] if a[1] == b[1] else None)
        if k == K.CALL_EXPR:
            callee = self._callee(c)
            if any(w in callee for w in _THREAD_WORDS):
                return (UNKNOWN, None)
            subs = [self.lin(a, depth + 1) for a in c.get_arguments()]
            if all(x[0] == 0 for x in subs):
                return (Fraction(0), _int_value(c))
            return clamp_like(callee, subs)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(c.get_children())
            if len(kids) == 2 and self.lin(kids[1], depth + 1)[0] == 0:
                return (Fraction(0), None)
            return (UNKNOWN, None)
        v = _int_value(c)
        if v is not None:
            return (Fraction(0), v)
        return (UNKNOWN, None)

    def _ptr_base(self, ref_expr, depth: int):
        """threadIdx.x coefficient of the offset of a local pointer from its array."""
        K = self.K
        ref = ref_expr.referenced
        if ref is None or ref.kind != K.VAR_DECL or depth > 6 or \
                ref.type.get_canonical().kind != ci.TypeKind.POINTER:
            return Fraction(0)
        coefs = []
        for op, e in self.defs.get(ref.hash, []):
            if e is None:
                return UNKNOWN
            if op in ("+=", "-="):
                if self.lin(e, depth + 1)[0] != 0:
                    return UNKNOWN
                continue
            if op == "=":
                coefs.append(self._ptr_offset(e, depth + 1))
        if not coefs:
            return Fraction(0)
        if any(c is UNKNOWN for c in coefs) or len({str(c) for c in coefs}) != 1:
            return UNKNOWN
        return coefs[0]

    def _ptr_offset(self, e, depth: int):
        K = self.K
        e = self._strip(e)
        if depth > 8:
            return UNKNOWN
        if e.kind == K.BINARY_OPERATOR:
            kids = list(e.get_children())
            op = _binop(e)
            if len(kids) == 2 and op in ("+", "-"):
                ptr_first = kids[0].type.get_canonical().kind in (ci.TypeKind.POINTER,
                                                                 ci.TypeKind.CONSTANTARRAY)
                p, i = (kids[0], kids[1]) if ptr_first else (kids[1], kids[0])
                return combine(op, (self._ptr_offset(p, depth + 1), None), self.lin(i, depth),
                               lambda: "?", lambda: "?")[0]
            return Fraction(0)
        if e.kind == K.UNARY_OPERATOR and _unop(e) == "&":
            kids = list(e.get_children())
            sub = self._strip(kids[0]) if kids else None
            if sub is not None and sub.kind == K.ARRAY_SUBSCRIPT_EXPR:
                parts = list(sub.get_children())
                if len(parts) == 2:
                    return combine("+", (self._ptr_offset(parts[0], depth + 1), None),
                                   self.lin(parts[1], depth), lambda: "?", lambda: "?")[0]
            return Fraction(0)
        if e.kind == K.DECL_REF_EXPR:
            return self._ptr_base(e, depth + 1)
        return Fraction(0)

    def _has_initialiser(self, var) -> bool:
        """Whether the declaration continues with ``=`` or ``(`` / ``{`` after the extent clang
        kept (it drops initialisers it could not type)."""
        end = var.extent.end
        if end.file is None or end.file.name != self.name:
            return False
        rest = self.model.source[end.offset:end.offset + 8].lstrip()
        return rest[:1] in (b"=", b"(", b"{") and rest[:2] != b"=="

    def _callee(self, c) -> str:
        """Name of a call's callee (``min``, ``thread_rank``), also for unresolved calls."""
        if c.spelling:
            return c.spelling
        node = next(iter(c.get_children()), None)
        for _ in range(4):
            if node is None:
                break
            if node.spelling:
                return node.spelling
            node = next(iter(node.get_children()), None)
        return self._text(c)

    def _uniform_member(self, c) -> bool:
        kids = list(c.get_children())
        if not kids:
            return True
        return self.lin(kids[0], 10)[0] == 0
