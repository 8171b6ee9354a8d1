"""Program model of one CUDA file, built once from tree-sitter-cuda; detectors read it.

Contract (the API detectors rely on; lines are 1-based everywhere)::

    build_model(source, path="<string>", entry="solution_compute", index=True) -> ProgramModel

Items (each keeps ``node``, the tree-sitter node, and ``line`` or ``line_start``/``line_end``):

- ``Param(name, type_text, is_pointer, is_const, is_restrict)``
- ``Function(name, node, body, line_start, line_end, qualifiers, is_kernel, is_device, is_host,
  params, template_params, launch_bounds)``; methods are named ``Struct::method``.
- ``Launch(kernel, node, line, caller, grid, block, smem, stream, grid_value, block_value,
  template_args, in_loop, kind)``; ``kind`` is ``'chevron'`` for ``k<<<g, b, smem, stream>>>()``,
  ``'api'`` for cudaLaunchKernel / cudaLaunchKernelEx, ``'cooperative'`` for
  cudaLaunchCooperativeKernel.
- ``VarDecl(name, space, type_text, dims, dim_values, size_bytes, function, line, node, extern,
  is_static)``; space is ``'shared'``, ``'constant'``, ``'device'`` (``__device__``/``__managed__``
  globals), ``'static'`` (static storage: ``static`` locals and any file-scope variable;
  ``is_static`` says whether the keyword was written), ``'register_array'`` (a local array in
  device code) or ``'local'`` (a local array in host code). An ``extern __shared__`` array takes
  ``size_bytes`` from its kernel's launches when their dynamic shared memory sizes agree.
- ``Loop(kind, node, function, line_start, line_end, var, init, cond, step, step_value,
  bound_value, trip_count, unroll, depth, parent, has_sync, step_op)``; ``unroll`` comes from a
  preceding ``#pragma unroll [N]``: int N, ``'full'`` when bare, 1 means no unroll; ``step_op`` is
  the update operator (``'+'``, ``'-'``, ``'*'``, ``'/'``, ``'<<'``, ``'>>'``); a ``while`` loop
  takes ``var`` and ``step`` from its condition and the single update of that variable in its
  body; ``has_sync`` is true when a block or grid barrier is called inside the loop.
- ``Access(array, node, function, line, index_text, is_write, space, index_node, stride_tx,
  stride_source, indices, is_read, cast_type, stride_expr)``: array subscripts and pointer
  dereferences in device code (kernels, device functions, and ``__device__`` lambdas inside host
  functions, whose accesses carry the host function's name; a lambda parameter index has no
  stride). Host pointers filled by ``cudaMalloc`` count as global memory. ``index_text`` is the
  last (fastest varying) index, ``indices`` all of them; ``cast_type`` the pointee type of a
  ``reinterpret_cast<float4*>(p)[i]`` style access; ``stride_tx`` the coefficient of ``threadIdx.x`` in the linearised index
  (``stride_expr`` its text when it is symbolic, e.g. ``'n'``), including the offset of a local
  pointer into its array (``row = a + tid * n; row[k]`` has stride ``'n'``); ``stride_source`` is
  ``'libclang'`` or ``'tree-sitter'``. ``&a[i]`` is an access only as the target of an atomic or
  the source of ``__ldg``.
- ``Call(name, node, function, line, args, category, receiver)`` for every call expression other
  than ``<<<>>>`` launches; ``name`` is the full callee text for qualified names. Categories:
  alloc, free, async_alloc, copy, copy_async, memset, copy_symbol, sync, device_sync, stream,
  event, graph, pinned, coop_launch, launch_api, occupancy, atomic, shuffle, vote, sync_threads,
  grid_sync, fast_math, ldg, texture, cublas, cusparse, cusolver, cufft, curand, thrust, cub, None.
- ``Pragma(text, line, function, kind, value, node)``; ``Macro(name, value_text, value, line)``.

``ProgramModel`` holds ``path, source, text, lines, tree, root, functions (name -> list),
kernels, device_functions, host_functions, launches, vars, loops, accesses, calls, pragmas,
macros, includes, constants, entry, entry_found, call_graph, reachable, warnings, degraded,
index_status`` and offers ``is_reachable(node)``, ``reachable_kernels()``,
``reachable_functions()``, ``in_function(node)``, ``function_of(name)``, ``loops_in(fn)``,
``accesses_in(fn)``, ``calls_in(fn)``, ``launches_of(kernel)``, ``vars_in(fn, space=None)`` (all
reachable-only unless ``all=True``), ``eval_int(expr, function=None)``, ``text_of(node)``,
``line_of(node)``, ``query(pattern, capture='evidence', reachable=True)``,
``uses_thread_index(node_or_text)`` and ``thread_index_vars(fn)``.

Comments and string literals never produce items. Code in dead branches (``if (0)``, ``#if 0``,
``#ifdef X`` with X not defined above, a condition folding to 0 through constants) and in
functions not reachable from the entry produces items, but ``is_reachable`` and the default
accessors drop them.

Beyond the contract: ``function_constants`` (per function), ``type_aliases`` (typedef/using),
``unbalanced_braces`` (line of an unclosed or stray brace, else None), ``index`` (the
:class:`strategylens.indexing.IndexResult` when libclang ran), ``subtree(node)`` and the module
function ``iter_nodes(node)`` (pre-order walks served as slices of one cached node list: use them
instead of private walkers), ``linear_tx(node, fn)`` (the threadIdx.x coefficient of any
expression), ``unparseable()`` (why the file is not CUDA C++ at all), and the helpers
``call_category``, ``type_size``, ``compile_query``. ``eval_int`` also folds locals that are
initialised once and never reassigned (``int threads = 256;``), ``sizeof(T)`` through template
bindings, ``min``/``max`` and function-like macros.

Parse errors degrade per node: attribute macros (``__align__(16)``) and unknown macros
(``FORCE_INLINE``) that break the parse are blanked (same length, so positions hold) and the file
is parsed again; unknown ones become warnings and set ``degraded``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from collections.abc import Iterable, Iterator

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query, QueryCursor

MODEL_READY = True

LANGUAGE = Language(tree_sitter_cuda.language())
_PARSER: Parser | None = None


def parser() -> Parser:
    """The process-wide tree-sitter-cuda parser."""
    global _PARSER
    if _PARSER is None:
        _PARSER = Parser(LANGUAGE)
    return _PARSER


@lru_cache(maxsize=512)
def compile_query(pattern: str) -> Query:
    """A compiled tree-sitter-cuda query, cached per process."""
    return Query(LANGUAGE, pattern)


# ---------------------------------------------------------------------------------------------
# items

@dataclass(eq=False)
class Param:
    name: str
    type_text: str
    is_pointer: bool
    is_const: bool
    is_restrict: bool


@dataclass(eq=False)
class Function:
    name: str
    node: Node = field(repr=False)
    body: Node | None = field(repr=False)
    line_start: int
    line_end: int
    qualifiers: set[str]
    is_kernel: bool
    is_device: bool
    is_host: bool
    params: list[Param]
    template_params: list[str]
    launch_bounds: tuple[str, ...] | None
    template_defaults: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class Loop:
    kind: str
    node: Node = field(repr=False)
    function: str | None
    line_start: int
    line_end: int
    var: str | None
    init: str | None
    cond: str | None
    step: str | None
    step_value: int | None
    bound_value: int | None
    trip_count: int | None
    unroll: int | str | None
    depth: int
    parent: Loop | None = field(repr=False)
    has_sync: bool
    step_op: str | None = None


@dataclass(eq=False)
class Launch:
    kernel: str
    node: Node = field(repr=False)
    line: int
    caller: str | None
    grid: str
    block: str
    smem: str | None
    stream: str | None
    grid_value: tuple[int, ...] | None
    block_value: tuple[int, ...] | None
    template_args: list[str]
    in_loop: Loop | None = field(repr=False)
    kind: str = "chevron"


@dataclass(eq=False)
class VarDecl:
    name: str
    space: str
    type_text: str
    dims: list[str]
    dim_values: list[int | None]
    size_bytes: int | None
    function: str | None
    line: int
    node: Node = field(repr=False)
    extern: bool
    is_static: bool


@dataclass(eq=False)
class Access:
    array: str
    node: Node = field(repr=False)
    function: str | None
    line: int
    index_text: str
    is_write: bool
    space: str
    index_node: Node | None = field(repr=False)
    stride_tx: int | None = None
    stride_source: str | None = None
    indices: list[str] = field(default_factory=list)
    is_read: bool = True
    cast_type: str | None = None
    stride_expr: str | None = None


@dataclass(eq=False)
class Call:
    name: str
    node: Node = field(repr=False)
    function: str | None
    line: int
    args: list[str]
    category: str | None
    receiver: str | None


@dataclass(eq=False)
class Pragma:
    text: str
    line: int
    function: str | None
    kind: str
    value: int | str | None
    node: Node = field(repr=False)


@dataclass(eq=False)
class Macro:
    name: str
    value_text: str
    value: int | None
    line: int
    params: list[str] | None = None  # function-like macros


# ---------------------------------------------------------------------------------------------
# call categories

_EXACT_CATEGORY = {
    **dict.fromkeys(["cudaMalloc", "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D",
                     "cudaMallocArray", "cudaMalloc3DArray", "cudaMallocMipmappedArray"], "alloc"),
    **dict.fromkeys(["cudaFree", "cudaFreeArray", "cudaFreeMipmappedArray"], "free"),
    **dict.fromkeys(["cudaMallocAsync", "cudaFreeAsync", "cudaMallocFromPoolAsync",
                     "cudaMemPoolCreate", "cudaMemPoolDestroy", "cudaMemPoolSetAttribute",
                     "cudaDeviceGetDefaultMemPool", "cudaDeviceSetMemPool",
                     "cudaMemPoolTrimTo"], "async_alloc"),
    **dict.fromkeys(["cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyPeer",
                     "cudaMemcpyToArray", "cudaMemcpyFromArray", "cudaMemcpy2DToArray",
                     "cudaMemcpy2DFromArray", "cudaMemcpyArrayToArray"], "copy"),
    **dict.fromkeys(["cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync",
                     "cudaMemcpyPeerAsync", "cudaMemcpyToArrayAsync", "cudaMemcpy2DToArrayAsync",
                     "cudaMemcpyFromArrayAsync", "cudaMemPrefetchAsync",
                     "cudaMemcpyBatchAsync"], "copy_async"),
    **dict.fromkeys(["cudaMemset", "cudaMemsetAsync", "cudaMemset2D", "cudaMemset3D",
                     "cudaMemset2DAsync", "cudaMemset3DAsync"], "memset"),
    **dict.fromkeys(["cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync",
                     "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
                     "cudaGetSymbolSize"], "copy_symbol"),
    **dict.fromkeys(["cudaStreamSynchronize", "cudaEventSynchronize"], "sync"),
    **dict.fromkeys(["cudaDeviceSynchronize", "cudaThreadSynchronize"], "device_sync"),
    **dict.fromkeys(["cudaStreamCreate", "cudaStreamCreateWithFlags",
                     "cudaStreamCreateWithPriority", "cudaStreamDestroy", "cudaStreamWaitEvent",
                     "cudaStreamQuery", "cudaStreamAddCallback", "cudaLaunchHostFunc",
                     "cudaStreamAttachMemAsync", "cudaStreamGetPriority",
                     "cudaDeviceGetStreamPriorityRange"], "stream"),
    **dict.fromkeys(["cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord",
                     "cudaEventRecordWithFlags", "cudaEventElapsedTime", "cudaEventDestroy",
                     "cudaEventQuery"], "event"),
    **dict.fromkeys(["cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamIsCapturing",
                     "cudaStreamGetCaptureInfo"], "graph"),
    **dict.fromkeys(["cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister",
                     "cudaHostUnregister", "cudaHostGetDevicePointer"], "pinned"),
    **dict.fromkeys(["cudaLaunchCooperativeKernel",
                     "cudaLaunchCooperativeKernelMultiDevice"], "coop_launch"),
    **dict.fromkeys(["cudaLaunchKernel", "cudaLaunchKernelEx", "cudaLaunchKernelExC"],
                    "launch_api"),
    **dict.fromkeys(["cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
                     "cudaFuncSetSharedMemConfig", "cudaDeviceSetCacheConfig",
                     "cudaDeviceSetSharedMemConfig", "cudaGetDeviceProperties",
                     "cudaDeviceGetAttribute", "cudaDeviceSetLimit"], "occupancy"),
    **dict.fromkeys(["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                     "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__reduce_add_sync",
                     "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
                     "__reduce_or_sync", "__reduce_xor_sync", "shfl", "shfl_up", "shfl_down",
                     "shfl_xor", "cg::reduce", "cooperative_groups::reduce",
                     "cg::inclusive_scan", "cg::exclusive_scan",
                     "cooperative_groups::inclusive_scan",
                     "cooperative_groups::exclusive_scan"], "shuffle"),
    **dict.fromkeys(["__ballot_sync", "__any_sync", "__all_sync", "__activemask", "__ballot",
                     "__any", "__all", "__match_any_sync", "__match_all_sync", "ballot", "any",
                     "all", "match_any", "match_all"], "vote"),
    **dict.fromkeys(["__syncthreads", "__syncthreads_count", "__syncthreads_and",
                     "__syncthreads_or", "__syncwarp", "__barrier_sync"], "sync_threads"),
    **dict.fromkeys(["__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf", "__cosf",
                     "__tanf", "__sincosf", "__powf", "__fdividef", "__fdiv_rn", "__frcp_rn",
                     "__fsqrt_rn", "__frsqrt_rn", "__saturatef", "__fmaf_rn", "__fmul_rn",
                     "__fadd_rn", "rsqrtf", "__fmaf_ieee_rn", "exp2f", "__exp2f",
                     "hexp", "hlog", "h2exp", "h2log"], "fast_math"),
    **dict.fromkeys(["__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stcg",
                     "__stcs", "__stwt", "__stwb"], "ldg"),
    **dict.fromkeys(["tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered",
                     "texCubemap", "tex2Dgather", "tex1DLod", "tex2DLod", "tex3DLod",
                     "surf1Dread", "surf1Dwrite", "surf2Dread", "surf2Dwrite", "surf3Dread",
                     "surf3Dwrite", "cudaCreateTextureObject", "cudaDestroyTextureObject",
                     "cudaCreateSurfaceObject", "cudaDestroySurfaceObject", "cudaBindTexture",
                     "cudaBindTexture2D", "cudaUnbindTexture",
                     "cudaBindTextureToArray"], "texture"),
}
_ATOMIC_BASE = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
                "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"}
_ATOMIC_METHODS = {"fetch_add", "fetch_sub", "fetch_min", "fetch_max", "fetch_and", "fetch_or",
                   "fetch_xor", "compare_exchange_strong", "compare_exchange_weak", "exchange"}
_PREFIX_CATEGORY = [("cublas", "cublas"), ("cusparse", "cusparse"), ("cusolver", "cusolver"),
                    ("cufft", "cufft"), ("curand", "curand"), ("thrust::", "thrust"),
                    ("cub::", "cub"), ("cudaGraph", "graph"), ("cudaOccupancy", "occupancy")]

THREAD_BUILTINS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def call_category(name: str, receiver_type: str | None = None) -> str | None:
    """Category of a callee name (see the module docstring); ``receiver_type`` is the declared
    type of the object for method calls (``grid.sync()`` on a ``grid_group``)."""
    base = name.rsplit("::", 1)[-1]
    if name in _EXACT_CATEGORY:
        return _EXACT_CATEGORY[name]
    if receiver_type is not None:
        rt = receiver_type.replace(" ", "")
        if base == "sync":
            if "grid_group" in rt or "this_grid" in rt:
                return "grid_sync"
            if "thread_block" in rt or "this_thread_block" in rt or "tiled_partition" in rt \
                    or "coalesced" in rt:
                return "sync_threads"
        if base in _ATOMIC_METHODS and "atomic" in rt:
            return "atomic"
        if base in ("shfl", "shfl_up", "shfl_down", "shfl_xor"):
            return "shuffle"
        if base in ("ballot", "any", "all", "match_any", "match_all"):
            return "vote"
        if rt.startswith("cub::"):
            return "cub"
        if rt.startswith("thrust::"):
            return "thrust"
    if base in _ATOMIC_BASE or any(base.startswith(a + "_") for a in _ATOMIC_BASE):
        return "atomic"
    if name in ("cg::sync", "cooperative_groups::sync"):
        return "sync_threads"
    for prefix, cat in _PREFIX_CATEGORY:
        if name.startswith(prefix) or (prefix.endswith("::") and name.startswith("::" + prefix)):
            return cat
    if base in _EXACT_CATEGORY and ("::" in name) and base.startswith("__"):
        return _EXACT_CATEGORY[base]
    return None


# ---------------------------------------------------------------------------------------------
# constant folding helpers

_TYPE_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "int": 4, "unsigned": 4, "unsigned int": 4,
    "float": 4, "int32_t": 4, "uint32_t": 4, "__half2": 4, "half2": 4, "__nv_bfloat162": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "double": 8,
    "int64_t": 8, "uint64_t": 8, "size_t": 8, "float2": 8, "int2": 8, "uint2": 8,
    "float3": 12, "int3": 12, "float4": 16, "int4": 16, "uint4": 16, "double2": 16,
    "longlong2": 16, "double4": 32, "char4": 4, "uchar4": 4, "short2": 4, "short4": 8,
    "long long int": 8, "unsigned long long int": 8, "long int": 8,
}


def type_size(type_text: str) -> int | None:
    """Bytes of a basic or CUDA vector type, or None."""
    t = " ".join(type_text.replace("const", " ").replace("volatile", " ").split())
    return _TYPE_SIZES.get(t)


def _int_literal(text: str) -> int | None:
    """Value of a C integer literal (``0x1F``, ``0b101``, ``017``, ``256u``, ``1'000``), or
    None (float literals are not integer constants)."""
    t = text.replace("'", "").rstrip("uUlL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0") and t.isdigit():
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


def _cdiv(a: int, b: int) -> int | None:
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: int, b: int) -> int | None:
    if b == 0:
        return None
    return a - b * _cdiv(a, b)


_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _cdiv, "%": _cmod,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
}

_PP_PREDEFINED = {"__CUDACC__", "__NVCC__", "__cplusplus", "__CUDACC_VER_MAJOR__",
                  "__CUDACC_VER_MINOR__", "__GNUC__", "__linux__", "__CUDA_RUNTIME_H__"}
_PP_UNKNOWN = {"__CUDA_ARCH__", "NDEBUG", "DEBUG", "_DEBUG"}
_LOOP_TYPES = {"for_statement": "for", "while_statement": "while", "do_statement": "do",
               "for_range_loop": "for"}
_SKIP_TYPES = {"comment", "string_literal", "raw_string_literal", "char_literal",
               "system_lib_string", "concatenated_string"}
_KNOWN_ATTRIBUTE_MACROS = {"__align__", "__launch_bounds__", "alignas", "__restrict__",
                           "__forceinline__", "__noinline__", "__inline__", "__device__",
                           "__host__", "__global__", "__shared__", "__constant__", "__managed__",
                           "__grid_constant__", "__cluster_dims__", "CUDA_CALLABLE"}


def _declarator_name(node: Node | None) -> tuple[str | None, Node | None]:
    """The declared name under a (possibly nested) declarator."""
    while node is not None:
        t = node.type
        if t in ("identifier", "field_identifier", "operator_name", "destructor_name",
                 "qualified_identifier", "type_identifier"):
            return node.text.decode("utf8", "replace"), node
        if t == "template_function":
            nm = node.child_by_field_name("name")
            return (nm.text.decode("utf8", "replace") if nm else None), nm
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            # parenthesized_declarator, ERROR wrappers: take the first declarator-like child
            nxt = next((c for c in node.named_children
                        if c.type.endswith("declarator") or c.type == "identifier"), None)
        node = nxt
    return None, None


def _array_dims(node: Node | None) -> list[Node | None]:
    """Size nodes of an array declarator, outermost first (None for ``[]``)."""
    dims: list[Node | None] = []
    while node is not None and node.type in ("array_declarator", "init_declarator",
                                             "pointer_declarator", "parenthesized_declarator",
                                             "reference_declarator"):
        if node.type == "array_declarator":
            dims.append(node.child_by_field_name("size"))
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        node = nxt
    dims.reverse()
    return dims


UNKNOWN = None  # a threadIdx.x coefficient that is not linear


def set_stride(access: Access, coef, source: str) -> None:
    """Record a threadIdx.x coefficient on an access: an int stride, a symbolic one (text) or
    unknown; a fractional coefficient (``tid / 32``) is stride 0 for the lanes of a group."""
    access.stride_source = source
    if coef is UNKNOWN:
        access.stride_tx, access.stride_expr = None, None
    elif isinstance(coef, str):
        access.stride_tx, access.stride_expr = None, coef
    else:
        access.stride_tx = int(coef) if coef.denominator == 1 else 0
        access.stride_expr = str(coef)


def combine(op: str, a, b, text_b, text_a):
    """Combine two ``(coef, const)`` pairs through a binary operator.

    ``coef`` is the coefficient of threadIdx.x (a Fraction, a symbolic str such as ``'n'``, or
    UNKNOWN when the expression is not linear in it); ``const`` the integer value when known.
    ``text_a`` / ``text_b`` give the operand texts for symbolic coefficients.
    """
    ca, cb = a[0], b[0]
    const = None
    if a[1] is not None and b[1] is not None and op in _BINOPS:
        const = _BINOPS[op](a[1], b[1])
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
    if name in _CLAMPS and len(varying) == 1 and varying[0][0] is not UNKNOWN:
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


# ---------------------------------------------------------------------------------------------
# the model

def _macro_text(value: str) -> str:
    """A #define's value without trailing comments: tree-sitter keeps `4  // note` as one
    preproc_arg token. Quotes are respected so "//" inside a string literal stays."""
    out, i, quote = [], 0, None
    while i < len(value):
        c = value[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < len(value):
                out.append(value[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif value.startswith("//", i):
            break
        elif value.startswith("/*", i):
            end = value.find("*/", i + 2)
            if end < 0:
                break
            out.append(" ")
            i = end + 1
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


class ProgramModel:
    """Facts about one CUDA source file; see the module docstring for the contract."""

    def __init__(self, source: str | bytes, path: str = "<string>",
                 entry: str = "solution_compute") -> None:
        if isinstance(source, str):
            source = source.encode("utf8")
        self.path = path
        self.reference: ProgramModel | None = None  # the task's C reference, set by the tagger
        self.source: bytes = source
        self.text: str = source.decode("utf8", "replace")
        self.lines: list[str] = self.text.splitlines()
        self.tree = None
        self.root: Node = None  # set by _parse
        self.entry = entry
        self.entry_found = False
        self.functions: dict[str, list[Function]] = {}
        self.kernels: list[Function] = []
        self.device_functions: list[Function] = []
        self.host_functions: list[Function] = []
        self.launches: list[Launch] = []
        self.vars: list[VarDecl] = []
        self.loops: list[Loop] = []
        self.accesses: list[Access] = []
        self.calls: list[Call] = []
        self.pragmas: list[Pragma] = []
        self.macros: dict[str, Macro] = {}
        self.includes: list[str] = []
        self.constants: dict[str, int] = {}
        self.function_constants: dict[str, dict[str, int]] = {}
        self.type_aliases: dict[str, str] = {}
        self.call_graph: dict[str, set[str]] = {}
        self.reachable: set[str] = set()
        self.warnings: list[str] = []
        self.degraded = False
        self.index_status = "unavailable: not run"
        self.unbalanced_braces: int | None = None  # line of an unclosed '{' (or stray '}')
        self.error_bytes = 0  # bytes covered by parse errors
        self.error_count = 0  # ERROR and MISSING nodes
        self.index = None  # set by strategylens.indexing when it runs
        self._fn_starts: list[int] = []
        self._fn_memo: dict = {}
        self._macro_bodies: dict[str, Node | None] = {}
        self._lin_memo: dict = {}
        self._device_lambdas: set[int] = set()  # start bytes of __device__ lambdas
        self._fn_list: list[Function] = []
        self._dead: list[tuple[int, int]] = []
        self._local_types: dict[str, dict[str, str]] = {}
        self._assigns: dict[str, dict[str, list[Node]]] = {}
        self._decls: dict[str, dict[str, list[tuple[Node, Node]]]] = {}
        self._tiv_cache: dict[str, set[str]] = {}
        self._expr_cache: dict[str, int | None] = {}
        self._evaluating: set[str] = set()
        self._template_bindings: dict[str, dict[str, str]] = {}
        self._template_sites: dict[str, list[tuple[list[str], Node]]] = {}
        self._hoisted_pragmas: list[Node] = []
        self._first_tree = None
        self._build()

    # ----- small helpers -------------------------------------------------------------------
    def text_of(self, node: Node | None) -> str:
        """Source text of a node ('' for None)."""
        if node is None:
            return ""
        return self.source[node.start_byte:node.end_byte].decode("utf8", "replace")

    def _directive_value(self, val: Node | None) -> str:
        """A #define's value: from its start to the end of the directive's line (continuations
        included), comments removed. tree-sitter ends preproc_arg at an inline /* comment */."""
        if val is None:
            return ""
        src = self.source
        end = src.find(b"\n", val.start_byte)
        while end > 0 and src[end - 1:end] == b"\\":
            end = src.find(b"\n", end + 1)
        end = len(src) if end < 0 else end
        return _macro_text(src[val.start_byte:end].decode("utf8", "replace").replace("\\\n", " "))

    @staticmethod
    def line_of(node: Node) -> int:
        """1-based line where a node starts."""
        return node.start_point[0] + 1

    def unparseable(self) -> str | None:
        """Why the file is not CUDA C++ at all (most of it is parse errors), or None."""
        code_lines = sum(1 for ln in self.lines if ln.strip())
        if self.error_bytes > 0.5 * max(1, len(self.source)):
            return f"{100 * self.error_bytes // len(self.source)}% of the file is unparseable"
        if self.error_count >= 5 and 4 * self.error_count > code_lines:
            return f"{self.error_count} parse errors in {code_lines} lines"
        return None

    def warn(self, message: str) -> None:
        if len(self.warnings) < _MAX_WARNINGS:
            self.warnings.append(message)
        elif len(self.warnings) == _MAX_WARNINGS:
            self.warnings.append("more problems not listed")

    # ----- build ---------------------------------------------------------------------------
    def _build(self) -> None:
        self._parse()
        self._index_nodes_flat()
        self._collect_preproc_and_functions()
        self._bind_templates()
        self._walk_bodies()
        for n in self._hoisted_pragmas:
            self._add_pragma(n, self.in_function(n))
        if self._hoisted_pragmas:
            self.pragmas.sort(key=lambda p: p.line)
        self._expr_cache.clear()
        for m in self.macros.values():
            if m.params is None and m.value_text:
                m.value = self.eval_int(m.value_text)
                if m.value is not None:
                    self.constants.setdefault(m.name, m.value)
        self._find_dead_regions()
        self._resolve_spaces()
        self._build_call_graph()
        self._compute_reachability()
        self._estimate_strides()

    def _iter(self, node: Node) -> Iterable[Node]:
        """Pre-order over named and unnamed nodes, skipping comments and strings."""
        return iter_nodes(node)

    def _index_nodes_flat(self) -> None:
        """One pre-order list of every node (not descending into comments and strings) with
        each node's subtree end, so that any subtree walk is a list slice."""
        flat: list[Node] = []
        end: list[int] = []
        pos: dict[int, int] = {}
        stack: list = [self.root]
        while stack:
            n = stack.pop()
            if type(n) is int:
                end[n] = len(flat)
                continue
            i = len(flat)
            flat.append(n)
            end.append(i + 1)
            pos[n.id] = i
            if n.child_count and n.type not in _SKIP_TYPES:
                stack.append(i)
                stack.extend(reversed(n.children))
        self._flat, self._flat_end, self._flat_pos = flat, end, pos
        _INDEXED.insert(0, self)
        del _INDEXED[4:]

    def subtree(self, node: Node) -> list[Node]:
        """``node`` and its descendants in pre-order (comments and strings not entered)."""
        i = self._flat_pos.get(node.id)
        if i is not None and self._flat[i].start_byte == node.start_byte and \
                self._flat[i].type == node.type:
            return self._flat[i:self._flat_end[i]]
        return list(_walk_nodes(node))

    def _parse(self) -> None:
        """Parse; when attribute macros (``__align__(16)``) or unknown macros (``FORCE_INLINE``)
        break the parse, blank exactly those tokens (same byte length, so lines and columns do
        not move) and parse again. Unknown macros are reported as warnings."""
        src = self.source
        tree = parser().parse(src)
        if tree.root_node.has_error:
            masked = self._mask_macros(tree.root_node)
            if masked is not None:
                src = masked
                tree = parser().parse(src)
        # `for (...)` NEWLINE `#pragma unroll` NEWLINE `for (...) body;` without braces: the
        # grammar closes the outer loop with an empty body at the pragma, so the loops would not
        # nest. Blank such pragmas (same length: lines do not move), parse again, and keep their
        # nodes from the first tree for `pragmas` and `Loop.unroll`.
        hoisted = self._pragmas_inside_headers(tree.root_node) if b"#pragma" in src else []
        if hoisted:
            buf = bytearray(src)
            for n in hoisted:
                for i in range(n.start_byte, n.end_byte):
                    if buf[i] not in (0x0A, 0x0D):
                        buf[i] = 0x20
            self._first_tree = tree  # keeps the hoisted nodes valid
            self._hoisted_pragmas = hoisted
            tree = parser().parse(bytes(buf))
        self.tree = tree
        self.root = tree.root_node

    @staticmethod
    def _pragmas_inside_headers(root: Node) -> list[Node]:
        found = []
        loops = QueryCursor(compile_query("[(for_statement) (while_statement)] @loop")).captures(
            root).get("loop", [])
        for n in loops:
            body = n.child_by_field_name("body")
            if body is None or body.type != "expression_statement" or \
                    body.end_byte - body.start_byte > 1:
                continue
            nxt = n.next_sibling
            while nxt is not None and nxt.type == "comment":
                nxt = nxt.next_sibling
            if nxt is not None and nxt.type == "preproc_call" and nxt.text is not None and \
                    nxt.text.lstrip().startswith(b"#pragma"):
                found.append(nxt)
        return found

    def _mask_macros(self, root: Node) -> bytes | None:
        src = self.source
        defined = set()
        for n in root.children:
            if n.type in ("preproc_def", "preproc_function_def"):
                defined.add(self.text_of(n.child_by_field_name("name")))
        spans: dict[int, int] = {}
        unknown: dict[str, int] = {}
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type != "ERROR" and not n.is_missing:
                if n.has_error:
                    stack.extend(n.children)
                continue
            cands = [c for c in self._near(n) if c.type in ("identifier", "type_identifier")]
            cands += [c for c in n.children if c.type in ("identifier", "type_identifier")]
            in_lambda = n.parent is not None and n.parent.type == "lambda_expression"
            for c in cands:
                name = self.text_of(c)
                if in_lambda and name in ("__device__", "__host__") and c.parent == n:
                    self._device_lambdas.add(n.parent.start_byte)  # [=] __device__ (int i)
                    spans[c.start_byte] = c.end_byte  # the qualifier only, not the parameters
                    continue
                if name in ("__align__", "alignas"):
                    pass
                elif name in _KNOWN_ATTRIBUTE_MACROS or name in defined:
                    continue
                elif not ((name.isupper() and len(name) > 2 and "_" in name) or
                          (name.startswith("__") and name.endswith("__"))):
                    continue
                else:
                    unknown.setdefault(name, self.line_of(c))
                end = c.end_byte
                j = end
                while j < len(src) and src[j:j + 1] in (b" ", b"\t"):
                    j += 1
                if j < len(src) and src[j:j + 1] == b"(":  # blank a macro's argument list too
                    depth = 0
                    for k in range(j, min(len(src), j + 200)):
                        ch = src[k:k + 1]
                        depth += ch == b"("
                        depth -= ch == b")"
                        if depth == 0:
                            end = k + 1
                            break
                spans[c.start_byte] = end
        if not spans:
            return None
        buf = bytearray(src)
        for a, b in spans.items():
            for k in range(a, b):
                if buf[k] not in (10, 13):
                    buf[k] = 32
        for name, line in sorted(unknown.items(), key=lambda kv: kv[1]):
            self.warn(f"line {line}: unknown macro '{name}'; parsed without it")
        if unknown:
            self.degraded = True
        return bytes(buf)

    def _collect_preproc_and_functions(self) -> None:
        errors = 0
        error_end = -1
        for n in self._iter(self.root):
            t = n.type
            if t == "ERROR" or n.is_missing:
                errors += 1
                self._note_error(n)
                if n.start_byte >= error_end:  # outermost errors only
                    self.error_bytes += n.end_byte - n.start_byte
                    error_end = n.end_byte
            elif t == "function_definition":
                self._add_function(n)
            elif t == "preproc_def":
                name = self.text_of(n.child_by_field_name("name"))
                vt = self._directive_value(n.child_by_field_name("value"))
                self.macros[name] = Macro(name, vt, None, self.line_of(n))
            elif t == "preproc_function_def":
                name = self.text_of(n.child_by_field_name("name"))
                ps = n.child_by_field_name("parameters")
                params = [self.text_of(c) for c in ps.named_children] if ps else []
                vt = self._directive_value(n.child_by_field_name("value"))
                self.macros[name] = Macro(name, vt, None, self.line_of(n), params)
            elif t == "preproc_include":
                self.includes.append(self.text_of(n.child_by_field_name("path")).strip("<>\""))
            elif t in ("type_definition", "alias_declaration"):
                self._add_alias(n)
        self.error_count = errors
        if errors:
            self.degraded = True
        self._fn_list.sort(key=lambda f: f.node.start_byte)
        self._fn_starts = [f.node.start_byte for f in self._fn_list]
        self.entry_found = self.entry in self.functions

    def _note_error(self, n: Node) -> None:
        line = self.line_of(n)
        if n.is_missing:
            if any(self.text_of(c) in _KNOWN_ATTRIBUTE_MACROS for c in self._near(n)
                   if c.type in ("identifier", "type_identifier")):
                return
            if n.type == "}":
                self._note_unbalanced(n)
                self.warn(f"line {line}: missing '}}' (unbalanced braces)")
            else:
                self.warn(f"line {line}: missing '{n.type}'")
            return
        full = self.text_of(n).strip()
        txt = full.splitlines()[0][:60] if full else ""
        for c in n.children:
            if c.type == "}":
                self._note_unbalanced(c, stray=True)
        # an unknown macro usually sits in the ERROR or just before it
        for c in self._near(n):
            if c.type in ("identifier", "type_identifier"):
                name = self.text_of(c)
                if name in _KNOWN_ATTRIBUTE_MACROS:
                    return  # __align__(16), __device__ lambdas: understood, nothing to say
                if (name.isupper() and len(name) > 1) or (name.startswith("__") and
                                                          name.endswith("__")):
                    if name not in self.macros:
                        self.warn(f"line {line}: unknown macro '{name}'; parsed around it")
                        return
        self.warn(f"line {line}: could not parse `{txt}`")

    @staticmethod
    def _near(n: Node) -> list[Node]:
        """Nodes just around a parse error: its first children, previous siblings, and the
        previous siblings of its parent."""
        near = list(n.children[:3])
        for base in (n, n.parent):
            sib = base.prev_sibling if base is not None else None
            for _ in range(3):
                if sib is None:
                    break
                near.append(sib)
                sib = sib.prev_sibling
        return near

    def _note_unbalanced(self, n: Node, stray: bool = False) -> None:
        if self.unbalanced_braces is not None:
            return
        if stray:
            self.unbalanced_braces = self.line_of(n)
            return
        # the '{' this missing '}' should close: the parent's opening brace
        p = n.parent
        opener = next((c for c in p.children if c.type == "{"), None) if p else None
        self.unbalanced_braces = self.line_of(opener or n)

    def _add_alias(self, n: Node) -> None:
        if n.type == "type_definition":
            ty = self.text_of(n.child_by_field_name("type"))
            for d in n.children_by_field_name("declarator"):
                name, _ = _declarator_name(d)
                if name:
                    self.type_aliases[name] = ty
        else:
            name = self.text_of(n.child_by_field_name("name"))
            ty = self.text_of(n.child_by_field_name("type"))
            if name:
                self.type_aliases[name] = ty

    def _add_function(self, n: Node) -> None:
        decl = n.child_by_field_name("declarator")
        # walk to the function_declarator (pointer/reference return types wrap it)
        fd = decl
        while fd is not None and fd.type != "function_declarator":
            fd = fd.child_by_field_name("declarator")
        if fd is None:
            return
        name, _ = _declarator_name(fd.child_by_field_name("declarator"))
        if not name:
            return
        owner = self._enclosing_class(n)
        if owner and "::" not in name:
            name = f"{owner}::{name}"
        quals: set[str] = set()
        launch_bounds = None
        for c in n.children:
            if c.type in ("__global__", "__device__", "__host__", "__forceinline__",
                          "__noinline__", "inline", "__inline__"):
                quals.add(c.type)
            elif c.type == "storage_class_specifier":
                quals.add(self.text_of(c))
            elif c.type == "launch_bounds":
                launch_bounds = tuple(self.text_of(x) for x in c.named_children)
            elif c.type == "type_qualifier":
                quals.add(self.text_of(c))
            elif c.type == "ERROR" or (c.type == "identifier" and c.prev_sibling is None):
                for x in self._iter(c):
                    if x.type in ("__global__", "__device__", "__host__", "__forceinline__"):
                        quals.add(x.type)
        if n.parent is not None and n.parent.type == "linkage_specification":
            quals.add('extern "C"')
        if n.parent is not None and n.parent.type == "declaration_list" and \
                n.parent.parent is not None and \
                n.parent.parent.type == "linkage_specification":
            quals.add('extern "C"')
        tparams: list[str] = []
        tdefaults: dict[str, str] = {}
        tp = n.parent
        if tp is not None and tp.type == "template_declaration":
            plist = tp.child_by_field_name("parameters")
            for p in (plist.named_children if plist else []):
                pname, _ = _declarator_name(p.child_by_field_name("declarator"))
                if pname is None:
                    pname = next((self.text_of(x) for x in p.named_children
                                  if x.type in ("type_identifier", "identifier")), None)
                if pname:
                    tparams.append(pname)
                    dv = p.child_by_field_name("default_value") or \
                        p.child_by_field_name("default_type")
                    if dv is not None:
                        tdefaults[pname] = self.text_of(dv)
        params = self._params(fd.child_by_field_name("parameters"))
        is_kernel = "__global__" in quals
        is_device = "__device__" in quals
        is_host = (not is_kernel and not is_device) or "__host__" in quals
        body = n.child_by_field_name("body")
        f = Function(name, n, body, self.line_of(n), n.end_point[0] + 1, quals, is_kernel,
                     is_device, is_host, params, tparams, launch_bounds, tdefaults)
        self.functions.setdefault(name, []).append(f)
        if is_kernel:
            self.kernels.append(f)
        else:  # __host__ __device__ functions are in both lists
            if is_device:
                self.device_functions.append(f)
            if is_host:
                self.host_functions.append(f)
        self._fn_list.append(f)

    def _enclosing_class(self, n: Node) -> str | None:
        p = n.parent
        while p is not None:
            if p.type in ("struct_specifier", "class_specifier", "union_specifier"):
                nm = p.child_by_field_name("name")
                return self.text_of(nm) if nm is not None else None
            if p.type in ("function_definition", "translation_unit"):
                return None
            p = p.parent
        return None

    def _params(self, plist: Node | None) -> list[Param]:
        out: list[Param] = []
        if plist is None:
            return out
        for p in plist.named_children:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            decl = p.child_by_field_name("declarator")
            name, _ = _declarator_name(decl)
            ty = self.text_of(p.child_by_field_name("type"))
            is_const = any(c.type == "type_qualifier" and self.text_of(c) == "const"
                           for c in p.children)
            ptr = 0
            restrict = False
            d = decl
            while d is not None:
                if d.type in ("pointer_declarator", "array_declarator",
                              "abstract_pointer_declarator"):
                    ptr += 1
                if d.type in ("pointer_declarator",):
                    restrict = restrict or any(
                        c.type == "type_qualifier" and "restrict" in self.text_of(c)
                        for c in d.children)
                d = d.child_by_field_name("declarator")
            out.append(Param(name or "", ("const " if is_const else "") + ty + " *" * ptr,
                             ptr > 0, is_const, restrict))
        return out

    def _bind_templates(self) -> None:
        """Template parameters bound by the launches/calls (when every site agrees) or by
        their defaults."""
        sites: dict[str, list[list[str]]] = {}
        for n in self._iter(self.root):
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and fn.type == "template_function":
                    nm = self.text_of(fn.child_by_field_name("name"))
                    if nm in self.functions:
                        args = fn.child_by_field_name("arguments")
                        sites.setdefault(nm, []).append(
                            [self.text_of(a) for a in (args.named_children if args else [])])
                        self._template_sites.setdefault(nm, []).append((sites[nm][-1], n))
        for name, fns in self.functions.items():
            for f in fns:
                if not f.template_params:
                    continue
                bind: dict[str, str] = dict(f.template_defaults)
                calls = sites.get(name, [])
                for i, tpn in enumerate(f.template_params):
                    vals = {c[i] for c in calls if len(c) > i}
                    if len(vals) == 1:
                        bind[tpn] = vals.pop()
                self._template_bindings[name] = bind

    # ----- dead regions ------------------------------------------------------------------
    def _find_dead_regions(self) -> None:
        dead: list[tuple[int, int]] = []
        for n in self._iter(self.root):
            t = n.type
            if t in ("preproc_if", "preproc_elif"):
                cond = n.child_by_field_name("condition")
                v = self._eval_pp(cond)
                alt = n.child_by_field_name("alternative")
                if v == 0:
                    start = cond.end_byte if cond is not None else n.start_byte
                    end = alt.start_byte if alt is not None else n.end_byte
                    dead.append((start, end))
                elif v is not None and alt is not None:
                    dead.append((alt.start_byte, n.end_byte))
            elif t == "preproc_ifdef":
                name_n = n.child_by_field_name("name")
                defined = self._pp_defined(self.text_of(name_n), n)
                if defined is None or name_n is None:
                    continue
                live = defined != any(c.type == "#ifndef" for c in n.children)
                alt = n.child_by_field_name("alternative")
                if not live:
                    dead.append((name_n.end_byte, alt.start_byte if alt else n.end_byte))
                elif alt is not None:
                    dead.append((alt.start_byte, n.end_byte))
            elif t == "if_statement":
                cond = n.child_by_field_name("condition")
                v = self._eval_condition(cond, n)
                if v is None:
                    continue
                cons = n.child_by_field_name("consequence")
                alt = n.child_by_field_name("alternative")
                if v == 0 and cons is not None:
                    dead.append((cons.start_byte, cons.end_byte))
                elif v != 0 and alt is not None:
                    dead.append((alt.start_byte, alt.end_byte))
            elif t == "while_statement":
                cond = n.child_by_field_name("condition")
                if self._eval_condition(cond, n) == 0:
                    body = n.child_by_field_name("body")
                    if body is not None:
                        dead.append((body.start_byte, body.end_byte))
        dead.sort()
        self._dead = dead

    def _eval_condition(self, cond: Node | None, at: Node) -> int | None:
        if cond is None:
            return None
        inner = cond
        if cond.type in ("condition_clause", "parenthesized_expression"):
            kids = [c for c in cond.named_children]
            if len(kids) != 1 or kids[0].type in ("declaration", "init_statement"):
                return None
            inner = kids[0]
        fn = self.in_function(at) if self._fn_starts else None
        return self.eval_int(inner, fn)

    def _eval_pp(self, cond: Node | None) -> int | None:
        return None if cond is None else self.eval_int(cond)

    def _pp_defined(self, name: str, at: Node) -> bool | None:
        """Whether macro ``name`` is defined at ``at``: by a ``#define`` above it or by the
        compiler (``__CUDACC__``); None when it depends on the compilation pass or on flags the
        file cannot show (``__CUDA_ARCH__``)."""
        if name in _PP_UNKNOWN:
            return None
        if name in _PP_PREDEFINED:
            return True
        m = self.macros.get(name)
        return m is not None and m.line < self.line_of(at)

    def _in_dead(self, node: Node) -> bool:
        s = node.start_byte
        i = bisect.bisect_right(self._dead, (s, float("inf")))
        # regions may nest; check every region that starts before s
        for a, b in self._dead[:i]:
            if a <= s < b:
                return True
        return False

    # ----- body walk ---------------------------------------------------------------------
    def _walk_bodies(self) -> None:
        # global-scope declarations
        for n in self._iter(self.root):
            if n.type == "function_definition":
                continue
            if n.type == "declaration" and self._owner_fn(n) is None:
                self._add_declaration(n, None)
            elif n.type == "enumerator":
                self._add_enumerator(n)
            elif n.type in ("preproc_call",) and self._owner_fn(n) is None:
                self._add_pragma(n, None)
        for f in self._fn_list:
            if f.body is not None:
                self._collect_definitions(f)
        for f in self._fn_list:
            if f.body is not None:
                self._walk(f.body, f, [])
        self._merge_constants()
        # dynamic shared memory takes its size from the launches when they agree
        for v in self.vars:
            if v.space == "shared" and v.extern and v.function in self.functions:
                sizes = {self.eval_int(la.smem, self.function_of(la.caller))
                         for la in self.launches if la.kernel == v.function and la.smem}
                if len(sizes) == 1 and None not in sizes:
                    v.size_bytes = sizes.pop()
        # a loop has a barrier when a block or grid synchronisation is called in it
        syncs = [c.node.start_byte for c in self.calls
                 if c.category in ("sync_threads", "grid_sync")]
        for lp in self.loops:
            lp.has_sync = any(lp.node.start_byte <= b < lp.node.end_byte for b in syncs)

    def _owner_fn(self, n: Node) -> Function | None:
        return self.in_function(n)

    def _add_enumerator(self, n: Node) -> None:
        # enumerators count up from the previous one
        name = self.text_of(n.child_by_field_name("name"))
        val = n.child_by_field_name("value")
        if val is not None:
            v = self.eval_int(val)
        else:
            prev = n.prev_named_sibling
            while prev is not None and prev.type != "enumerator":
                prev = prev.prev_named_sibling
            pv = self.constants.get(self.text_of(prev.child_by_field_name("name"))) \
                if prev is not None else -1
            v = None if pv is None else pv + 1
        if v is not None and name:
            self.constants.setdefault(name, v)

    def _walk(self, node: Node, fn: Function, loops: list[Loop]) -> None:
        """Collect loops, calls, declarations, accesses and pragmas of one function body, in
        source order, over the flat node list (a loop is open until its subtree ends)."""
        flat, ends = self._flat, self._flat_end
        i = self._flat_pos[node.id]
        stop = ends[i]
        open_loops: list[tuple[Loop, int]] = [(lp, stop) for lp in loops]
        device_end = -1  # inside a __device__ lambda of host code until this index
        while i < stop:
            n = flat[i]
            while open_loops and i >= open_loops[-1][1]:
                open_loops.pop()
            cur = open_loops[-1][0] if open_loops else None
            t = n.type
            if t == "lambda_expression" and n.start_byte in self._device_lambdas:
                device_end = max(device_end, ends[i])
            device = fn.is_device or fn.is_kernel or i < device_end
            if t == "function_definition":
                i = ends[i]  # nested methods are walked on their own
                continue
            if t in _LOOP_TYPES:
                lp = self._add_loop(n, fn, cur, len(open_loops))
                open_loops.append((lp, ends[i]))
            elif t == "call_expression":
                self._add_call(n, fn, cur)
            elif t == "declaration":
                self._add_declaration(n, fn)
            elif t == "subscript_expression" and device:
                self._add_access(n, fn)
            elif t == "pointer_expression" and n.child_count and n.children[0].type == "*" \
                    and device:
                self._add_deref(n, fn)
            elif t == "preproc_call":
                self._add_pragma(n, fn)
            i += 1

    def _add_pragma(self, n: Node, fn: Function | None) -> None:
        d = n.child_by_field_name("directive")
        if d is None or self.text_of(d).strip() != "#pragma":
            return
        arg = self.text_of(n.child_by_field_name("argument")).strip()
        kind, value = "other", None
        words = arg.split(None, 1)
        if words and words[0] == "unroll":
            kind = "unroll"
            rest = words[1].strip() if len(words) > 1 else ""
            if rest.startswith("(") and rest.endswith(")"):
                rest = rest[1:-1].strip()
            if not rest:
                value = "full"
            else:
                v = self.eval_int(rest, fn)
                value = v if v is not None else rest
        elif words and words[0] == "nounroll":
            kind, value = "unroll", 1
        self.pragmas.append(Pragma(arg, self.line_of(n), fn.name if fn else None, kind, value, n))

    def _add_loop(self, n: Node, fn: Function, parent: Loop | None, depth: int) -> Loop:
        kind = _LOOP_TYPES[n.type]
        init_n = n.child_by_field_name("initializer")
        cond_n = n.child_by_field_name("condition")
        step_n = n.child_by_field_name("update")
        var = None
        init_val = None
        if init_n is not None:
            if init_n.type == "declaration":
                d = init_n.child_by_field_name("declarator")
                if d is not None and d.type == "init_declarator":
                    var, _ = _declarator_name(d.child_by_field_name("declarator"))
                    init_val = self.eval_int(d.child_by_field_name("value"), fn)
            elif init_n.type == "assignment_expression":
                var = self.text_of(init_n.child_by_field_name("left"))
                init_val = self.eval_int(init_n.child_by_field_name("right"), fn)
            elif init_n.type == "comma_expression":
                left = init_n.child_by_field_name("left")
                if left is not None and left.type == "assignment_expression":
                    var = self.text_of(left.child_by_field_name("left"))
                    init_val = self.eval_int(left.child_by_field_name("right"), fn)
        if cond_n is not None and cond_n.type in ("parenthesized_expression", "condition_clause") \
                and cond_n.named_child_count == 1:
            cond_n = cond_n.named_children[0]
        step_value, step_op = None, None
        if step_n is not None:
            sv, so, sv_var = self._loop_step(step_n, fn)
            step_value, step_op = sv, so
            if var is None:
                var = sv_var
        bound = None
        cmp_op = None
        if cond_n is not None and cond_n.type == "binary_expression":
            op = self.text_of(cond_n.child_by_field_name("operator"))
            left = cond_n.child_by_field_name("left")
            right = cond_n.child_by_field_name("right")
            if op in ("<", "<=", ">", ">=", "!="):
                if var is not None and self.text_of(left) == var:
                    bound, cmp_op = self.eval_int(right, fn), op
                elif var is not None and self.text_of(right) == var:
                    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
                    bound, cmp_op = self.eval_int(left, fn), flip[op]
                elif var is None:
                    bound = self.eval_int(right, fn)
        if kind in ("while", "do") and var is None and cond_n is not None and \
                cond_n.type == "binary_expression":
            left = cond_n.child_by_field_name("left")
            op = self.text_of(cond_n.child_by_field_name("operator"))
            body = n.child_by_field_name("body")
            if left is not None and left.type == "identifier" and body is not None and \
                    op in ("<", "<=", ">", ">=", "!="):
                name = self.text_of(left)
                steps = [a for a in self._assigns.get(fn.name, {}).get(name, [])
                         if a.type != "init_declarator"
                         and body.start_byte <= a.start_byte < body.end_byte]
                if len(steps) == 1:  # while (i < n) { ...; i += stride; }
                    var = name
                    step_n = steps[0]
                    step_value, step_op, _ = self._loop_step(step_n, fn)
                    bound = self.eval_int(cond_n.child_by_field_name("right"), fn)
                    cmp_op = op
        trip = self._trip_count(init_val, bound, cmp_op, step_value, step_op)
        unroll = self._unroll_for(n, fn)
        lp = Loop(kind, n, fn.name, self.line_of(n), n.end_point[0] + 1, var,
                  self.text_of(init_n) or None, self.text_of(cond_n) or None,
                  self.text_of(step_n) or None, step_value, bound, trip, unroll, depth, parent,
                  False, step_op)
        self.loops.append(lp)
        return lp

    def _loop_step(self, step: Node, fn: Function) -> tuple[int | None, str | None, str | None]:
        if step.type == "comma_expression":
            step = step.child_by_field_name("left") or step
        if step.type == "update_expression":
            arg = self.text_of(step.child_by_field_name("argument"))
            op = self.text_of(step.child_by_field_name("operator"))
            return (1, "+", arg) if op == "++" else (-1, "-", arg)
        if step.type == "assignment_expression":
            var = self.text_of(step.child_by_field_name("left"))
            op = self.text_of(step.child_by_field_name("operator"))
            right = step.child_by_field_name("right")
            if op == "=" and right is not None and right.type == "binary_expression":
                # i = i + c
                bop = self.text_of(right.child_by_field_name("operator"))
                if self.text_of(right.child_by_field_name("left")) == var:
                    op, right = bop + "=", right.child_by_field_name("right")
            v = self.eval_int(right, fn)
            base = op[:-1] if op.endswith("=") else None
            if base == "+":
                return v, "+", var
            if base == "-":
                return (None if v is None else -v), "-", var
            if base in ("*", "/", "<<", ">>"):
                return v, base, var
            return None, None, var
        return None, None, None

    @staticmethod
    def _trip_count(init, bound, cmp_op, step, step_op) -> int | None:
        if init is None or bound is None or step is None or cmp_op is None:
            return None
        if step_op in ("+", "-"):
            if step == 0:
                return None
            if cmp_op == "<" and step > 0:
                return max(0, -(-(bound - init) // step))
            if cmp_op == "<=" and step > 0:
                return max(0, (bound - init) // step + 1)
            if cmp_op == ">" and step < 0:
                return max(0, -(-(init - bound) // -step))
            if cmp_op == ">=" and step < 0:
                return max(0, (init - bound) // -step + 1)
            if cmp_op == "!=" and (bound - init) % step == 0 and (bound - init) // step >= 0:
                return (bound - init) // step
            return None
        # multiplicative loops: simulate a few steps
        v, count = init, 0
        ops = {"*": lambda x: x * step, "<<": lambda x: x << step,
               "/": lambda x: _cdiv(x, step), ">>": lambda x: x >> step}
        if step_op not in ops or (step_op in ("*", "/") and step in (0, 1)) or step == 0:
            return None
        test = _BINOPS[cmp_op]
        while test(v, bound) and count < 4096:
            count += 1
            v = ops[step_op](v)
            if v is None:
                return None
        return count if count < 4096 else None

    def _unroll_for(self, loop: Node, fn: Function) -> int | str | None:
        prev = loop.prev_sibling
        while prev is not None and prev.type == "comment":
            prev = prev.prev_sibling
        if prev is None or prev.type != "preproc_call":
            # a pragma blanked by _parse that stood right above this loop
            row = loop.start_point[0]
            prev = next((h for h in self._hoisted_pragmas if h.end_point[0] in (row, row - 1)
                         or h.start_point[0] == row - 1), prev)
        if prev is not None and prev.type == "preproc_call":
            d = prev.child_by_field_name("directive")
            arg = self.text_of(prev.child_by_field_name("argument")).strip()
            if d is not None and self.text_of(d).strip() == "#pragma":
                words = arg.split(None, 1)
                if words and words[0] == "unroll":
                    rest = words[1].strip() if len(words) > 1 else ""
                    if rest.startswith("(") and rest.endswith(")"):
                        rest = rest[1:-1].strip()
                    if not rest:
                        return "full"
                    v = self.eval_int(rest, fn)
                    return v if v is not None else rest
                if words and words[0] == "nounroll":
                    return 1
        return None

    def _callee_name(self, call: Node) -> tuple[str, str | None, Node | None, list[str]]:
        """(name, receiver text, receiver node, template args) of a call expression."""
        fnode = call.child_by_field_name("function")
        if fnode is None:
            return "", None, None, []
        targs: list[str] = []
        if fnode.type == "template_function":
            a = fnode.child_by_field_name("arguments")
            targs = [self.text_of(x) for x in (a.named_children if a else [])]
            return self.text_of(fnode.child_by_field_name("name")), None, None, targs
        if fnode.type == "field_expression":
            arg = fnode.child_by_field_name("argument")
            fld = fnode.child_by_field_name("field")
            name = self.text_of(fld)
            if fld is not None and fld.type == "template_method":
                name = self.text_of(fld.child_by_field_name("name"))
            return name, self.text_of(arg), arg, targs
        if fnode.type == "qualified_identifier":
            # drop template arguments inside the qualified name
            parts = []
            q = fnode
            while q is not None and q.type == "qualified_identifier":
                sc = q.child_by_field_name("scope")
                if sc is not None:
                    parts.append(self.text_of(sc.child_by_field_name("name") or sc)
                                 if sc.type == "template_type" else self.text_of(sc))
                q = q.child_by_field_name("name")
            if q is not None:
                if q.type == "template_function":
                    a = q.child_by_field_name("arguments")
                    targs = [self.text_of(x) for x in (a.named_children if a else [])]
                    q = q.child_by_field_name("name")
                parts.append(self.text_of(q))
            return "::".join(parts), None, None, targs
        if fnode.type == "parenthesized_expression":
            return self.text_of(fnode).strip("()"), None, None, targs
        return self.text_of(fnode), None, None, targs

    def _add_call(self, n: Node, fn: Function, loop: Loop | None) -> None:
        name, receiver, recv_node, targs = self._callee_name(n)
        kcs = next((c for c in n.children if c.type == "kernel_call_syntax"), None)
        args_n = n.child_by_field_name("arguments")
        args = [self.text_of(a) for a in (args_n.named_children if args_n else [])]
        line = self.line_of(n)
        if kcs is not None:
            if name not in self.functions and "::" in name and \
                    name.rsplit("::", 1)[1] in self.functions:
                name = name.rsplit("::", 1)[1]  # ns::kernel<<<...>>> launches `kernel`
            cfg = kcs.named_children
            texts = [self.text_of(c) for c in cfg]
            grid = texts[0] if texts else ""
            block = texts[1] if len(texts) > 1 else ""
            self.launches.append(Launch(
                name, n, line, fn.name, grid, block, texts[2] if len(texts) > 2 else None,
                texts[3] if len(texts) > 3 else None,
                self._dim_value(cfg[0] if cfg else None, fn),
                self._dim_value(cfg[1] if len(cfg) > 1 else None, fn), targs, loop, "chevron"))
            return
        if name in ("reinterpret_cast", "static_cast", "const_cast", "dynamic_cast"):
            return
        rtype = None
        if recv_node is not None:
            rtext = self.text_of(recv_node)
            rtype = self._local_types.get(fn.name, {}).get(rtext) or \
                self._local_types.get("", {}).get(rtext) or rtext
            rtype = self.type_aliases.get(rtype, rtype)
            if recv_node.type == "call_expression":
                inner = self._callee_name(recv_node)[0]
                rtype = self.type_aliases.get(inner, inner)
        cat = call_category(name, rtype)
        if cat is None and name in self.type_aliases:
            cat = call_category(self.type_aliases[name])
        self.calls.append(Call(name, n, fn.name, line, args, cat, receiver))
        if name in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") and args_n is not None:
            a = args_n.named_children
            kname = self._strip_fn_ref(a[0]) if a else ""
            self.launches.append(Launch(
                kname, n, line, fn.name, args[1] if len(args) > 1 else "",
                args[2] if len(args) > 2 else "", args[4] if len(args) > 4 else None,
                args[5] if len(args) > 5 else None,
                self._dim_value(a[1] if len(a) > 1 else None, fn),
                self._dim_value(a[2] if len(a) > 2 else None, fn), [], loop,
                "cooperative" if "Cooperative" in name else "api"))
        elif name == "cudaLaunchKernelEx" and args_n is not None and len(args) > 1:
            kname = self._strip_fn_ref(args_n.named_children[1])
            self.launches.append(Launch(kname, n, line, fn.name, args[0], args[0], None, None,
                                        None, None, [], loop, "api"))

    def _strip_fn_ref(self, node: Node) -> str:
        """Kernel name from ``(void*)kern``, ``&kern``, ``kern<T>``."""
        for x in self._iter(node):
            if x.type == "identifier" and self.text_of(x) in self.functions:
                return self.text_of(x)
        for x in self._iter(node):
            if x.type == "identifier":
                return self.text_of(x)
        return self.text_of(node)

    def _dim_value(self, node: Node | None, fn: Function) -> tuple[int, ...] | None:
        if node is None:
            return None
        # dim3(a, b) / dim3{a, b}
        if node.type in ("call_expression", "compound_literal_expression",
                         "initializer_list"):
            args = node.child_by_field_name("arguments") or node.child_by_field_name("value") \
                or node
            vals = [self.eval_int(a, fn) for a in args.named_children]
            return tuple(vals) if vals and None not in vals else None
        if node.type == "identifier":
            init = self._dim3_init(self.text_of(node), fn)
            if init is not None:
                return init
        v = self.eval_int(node, fn)
        return (v,) if v is not None else None

    def _dim3_init(self, name: str, fn: Function) -> tuple[int, ...] | None:
        """Value of a ``dim3 name(a, b)`` declared in ``fn`` (or globally)."""
        scopes = [fn.body] if fn.body is not None else []
        for scope in scopes:
            for x in self._iter(scope):
                if x.type != "declaration":
                    continue
                ty = self.text_of(x.child_by_field_name("type"))
                if ty != "dim3":
                    continue
                for d in x.children_by_field_name("declarator"):
                    if d.type == "function_declarator" and self.text_of(
                            d.child_by_field_name("declarator")) == name:
                        # `dim3 block(TILE, TILE);` parses as a function declaration
                        ps = d.child_by_field_name("parameters")
                        vals = [self.eval_int(self.text_of(a), fn)
                                for a in (ps.named_children if ps else [])]
                        return tuple(vals) if vals and None not in vals else None
                    if d.type == "init_declarator" and self.text_of(
                            d.child_by_field_name("declarator")) == name:
                        v = d.child_by_field_name("value")
                        if v is None:
                            return None
                        if v.type in ("argument_list", "initializer_list"):
                            vals = [self.eval_int(a, fn) for a in v.named_children]
                            return tuple(vals) if vals and None not in vals else None
                        return self._dim_value(v, fn)
        return None

    def _add_declaration(self, n: Node, fn: Function | None) -> None:
        quals = set()
        is_static = extern = False
        for c in n.children:
            if c.type == "type_qualifier":
                quals.add(self.text_of(c))
            elif c.type in ("__device__", "__shared__", "__constant__", "__managed__"):
                quals.add(c.type)
            elif c.type == "storage_class_specifier":
                s = self.text_of(c)
                is_static |= s == "static"
                extern |= s == "extern"
        type_text = self._decl_type(n)
        const = "const" in quals or "constexpr" in quals
        for d in n.children_by_field_name("declarator"):
            name, _ = _declarator_name(d)
            if name is None:
                # __align__(16) float s[64] parses as parenthesized_declarator with ERROR
                continue
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            dims_nodes = _array_dims(d)
            is_ptr = any(x.type == "pointer_declarator" for x in self._iter(d)
                         if x.type.endswith("declarator"))
            if fn is None:
                self._local_types.setdefault("", {})[name] = type_text + ("*" if is_ptr else "")
            # constants
            if const and value is not None and not dims_nodes and not is_ptr:
                v = self.eval_int(value, fn)
                if v is not None:
                    if fn is None:
                        self.constants[name] = v
                    else:
                        self.function_constants.setdefault(fn.name, {})[name] = v
            space = None
            if "__shared__" in quals:
                space = "shared"
            elif "__constant__" in quals:
                space = "constant"
            elif "__device__" in quals or "__managed__" in quals:
                space = "device"
            elif is_static or fn is None:
                if fn is None and (extern and not dims_nodes):
                    space = None
                else:
                    space = "static"
            elif dims_nodes:
                space = "register_array" if (fn.is_device or fn.is_kernel) else "local"
            if space is None:
                continue
            if fn is None and space == "static" and const and not dims_nodes:
                continue  # a file-scope constant, not state
            dims = [self.text_of(x) if x is not None else "" for x in dims_nodes]
            dvals = [self.eval_int(x, fn) if x is not None else None for x in dims_nodes]
            if len(dvals) == 1 and dvals[0] is None and not dims[0] and value is not None and \
                    value.type == "initializer_list":
                dvals = [value.named_child_count]  # float c[] = {1, 2, 3}
            size = None
            esize = type_size(type_text)
            if esize is None and fn is not None and \
                    type_text in self._template_bindings.get(fn.name, {}):
                esize = type_size(self._template_bindings[fn.name][type_text])  # T = float
            if is_ptr:
                esize = 8
            if esize is not None and dvals and None not in dvals:
                size = esize
                for v in dvals:
                    size *= v
            elif esize is not None and not dims_nodes:
                size = esize
            self.vars.append(VarDecl(name, space, type_text + (" *" if is_ptr else ""), dims,
                                     dvals, size, fn.name if fn else None, self.line_of(n), n,
                                     extern, is_static))

    def _decl_type(self, n: Node) -> str:
        """Type text of a declaration (the real type behind ``__align__(16) float``)."""
        type_node = n.child_by_field_name("type")
        type_text = self.text_of(type_node)
        if type_text in ("__align__", "alignas") or (type_node is not None and
                                                     type_node.type == "ERROR"):
            inner = next((x for x in self._iter(n) if x.type in (
                "primitive_type", "type_identifier", "sized_type_specifier")
                and x != type_node), None)
            type_text = self.text_of(inner) if inner is not None else type_text
        return type_text

    def _collect_definitions(self, fn: Function) -> None:
        """Declarations, assignments and increments of the locals of ``fn``, before anything
        is evaluated, so that constant propagation sees every definition."""
        flat, ends = self._flat, self._flat_end
        i = self._flat_pos[fn.body.id]
        stop = ends[i]
        types = self._local_types.setdefault(fn.name, {})
        decls = self._decls.setdefault(fn.name, {})
        assigns = self._assigns.setdefault(fn.name, {})
        while i < stop:
            n = flat[i]
            t = n.type
            if t == "function_definition":
                i = ends[i]
                continue
            if t == "declaration":
                ty = self._decl_type(n)
                for d in n.children_by_field_name("declarator"):
                    name, _ = _declarator_name(d)
                    if name is None:
                        continue
                    is_ptr = any(x.type == "pointer_declarator" for x in self._iter(d))
                    types[name] = ty + ("*" if is_ptr else "")
                    decls.setdefault(name, []).append((d, n.parent or n))
                    if d.type == "init_declarator" and d.child_by_field_name("value"):
                        assigns.setdefault(name, []).append(d)
            elif t == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    assigns.setdefault(self.text_of(left), []).append(n)
            elif t == "update_expression" or (t == "pointer_expression" and n.child_count
                                                and n.children[0].type == "&"):
                # x++ and &x (which lets a callee write x) are definitions too
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    assigns.setdefault(self.text_of(arg), []).append(n)
            i += 1

    def _access_base(self, arg: Node) -> tuple[str, str | None]:
        """Array name and cast type of a subscript's base expression."""
        cast = None
        node = arg
        for _ in range(8):
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            elif node.type == "cast_expression":
                td = node.child_by_field_name("type")
                cast = cast or self._pointee(td)
                node = node.child_by_field_name("value")
            elif node.type == "call_expression":
                f = node.child_by_field_name("function")
                a = node.child_by_field_name("arguments")
                if f is not None and f.type == "template_function" and self.text_of(
                        f.child_by_field_name("name")) in ("reinterpret_cast", "static_cast",
                                                           "const_cast"):
                    ta = f.child_by_field_name("arguments")
                    if ta is not None and ta.named_child_count:
                        cast = cast or self._pointee(ta.named_children[0])
                    if a is not None and a.named_child_count:
                        node = a.named_children[0]
                        continue
                break
            elif node.type == "pointer_expression" and node.children[0].type == "&":
                node = node.child_by_field_name("argument")
            elif node.type == "binary_expression":
                node = node.child_by_field_name("left")
            elif node.type == "subscript_expression":
                node = node.child_by_field_name("argument")
            else:
                break
            if node is None:
                return "", cast
        return self.text_of(node), cast

    def _pointee(self, td: Node | None) -> str | None:
        if td is None:
            return None
        ty = td.child_by_field_name("type")
        return self.text_of(ty) if ty is not None else None

    def _is_write(self, n: Node) -> tuple[bool, bool]:
        p = n.parent
        while p is not None and p.type == "parenthesized_expression":
            n, p = p, p.parent
        if p is None:
            return False, True
        if p.type == "assignment_expression" and p.child_by_field_name("left") == n:
            op = self.text_of(p.child_by_field_name("operator"))
            return True, op != "="
        if p.type == "update_expression":
            return True, True
        if p.type == "pointer_expression" and p.children[0].type == "&":
            call = p.parent.parent if p.parent is not None else None
            if call is not None and call.type == "call_expression" and \
                    p.parent.named_children and p.parent.named_children[0] == p:
                name = self._callee_name(call)[0]
                if call_category(name) == "atomic":
                    return True, True
        return False, True

    def _add_access(self, n: Node, fn: Function) -> None:
        if n.parent is not None and n.parent.type == "subscript_expression" and \
                n.parent.child_by_field_name("argument") == n:
            return  # the outer subscript records the whole a[i][j]
        p = n.parent
        if p is not None and p.type == "pointer_expression" and p.children[0].type == "&":
            # &a[i] computes an address; it is an access only as the target of an atomic or
            # the source of __ldg(&a[i]) and its cache-hinted siblings
            call = p.parent.parent if p.parent is not None else None
            if call is None or call.type != "call_expression" or \
                    call_category(self._callee_name(call)[0]) not in ("atomic", "ldg"):
                return
        indices: list[Node] = []
        base = n
        while base is not None and base.type == "subscript_expression":
            idx = base.child_by_field_name("indices") or base.child_by_field_name("index")
            if idx is not None:
                kids = idx.named_children if idx.type == "subscript_argument_list" else [idx]
                indices[:0] = kids
            base = base.child_by_field_name("argument")
        if base is None:
            return
        array, cast = self._access_base(base)
        if not array or not indices:
            return
        w, r = self._is_write(n)
        last = indices[-1]
        self.accesses.append(Access(array, n, fn.name, self.line_of(n), self.text_of(last), w,
                                    "unknown", last, indices=[self.text_of(i) for i in indices],
                                    is_read=r, cast_type=cast))

    def _add_deref(self, n: Node, fn: Function) -> None:
        arg = n.child_by_field_name("argument")
        if arg is None:
            return
        inner = arg
        while inner.type == "parenthesized_expression" and inner.named_child_count == 1:
            inner = inner.named_children[0]
        idx_node = None
        if inner.type == "binary_expression" and self.text_of(
                inner.child_by_field_name("operator")) == "+":
            array, cast = self._access_base(inner.child_by_field_name("left"))
            idx_node = inner.child_by_field_name("right")
        elif inner.type in ("identifier", "field_expression"):
            array, cast = self.text_of(inner), None
        else:
            return
        if not array:
            return
        w, r = self._is_write(n)
        it = self.text_of(idx_node) if idx_node is not None else "0"
        self.accesses.append(Access(array, n, fn.name, self.line_of(n), it, w, "unknown",
                                    idx_node, indices=[it], is_read=r, cast_type=cast))

    def _merge_constants(self) -> None:
        seen: dict[str, set[int]] = {}
        for consts in self.function_constants.values():
            for k, v in consts.items():
                seen.setdefault(k, set()).add(v)
        for k, vals in seen.items():
            if len(vals) == 1 and k not in self.constants:
                self.constants[k] = next(iter(vals))

    # ----- spaces ------------------------------------------------------------------------
    def _resolve_spaces(self) -> None:
        global_space = {v.name: v.space for v in self.vars if v.function is None}
        local_space: dict[str, dict[str, str]] = {}
        for v in self.vars:
            if v.function is not None:
                local_space.setdefault(v.function, {})[v.name] = (
                    "local" if v.space in ("register_array", "static") and v.space != "static"
                    else v.space)
        param_space: dict[str, dict[str, str]] = {}
        for f in self._fn_list:
            ps = param_space.setdefault(f.name, {})
            for p in f.params:
                if p.is_pointer:
                    ps[p.name] = "global" if f.is_kernel else "unknown"
                elif f.is_kernel and type_size(p.type_text) is None and \
                        p.type_text not in ("int", "unsigned", "bool", "size_t"):
                    ps[p.name] = "struct"  # k(Params p): p.a[i] reads global memory
        # device-function pointer parameters take the space of the arguments at their call sites
        for c in self.calls:
            fns = self.functions.get(c.name)
            if not fns or not c.function:
                continue
            f = fns[0]
            if f.is_kernel:
                continue
            for i, p in enumerate(f.params):
                if not p.is_pointer or i >= len(c.args):
                    continue
                a = c.args[i].lstrip("&(").split("[")[0].split("+")[0].strip(" )")
                sp = self._space_of(a, c.function, global_space, local_space, param_space)
                cur = param_space[f.name].get(p.name, "unknown")
                if sp != "unknown" and cur in ("unknown", sp):
                    param_space[f.name][p.name] = sp
                elif sp != cur and cur != "unknown":
                    param_space[f.name][p.name] = "unknown"
        # host pointers filled by cudaMalloc / cudaMallocAsync point to device memory
        for c in self.calls:
            if c.category in ("alloc", "async_alloc") and c.args and c.function:
                target = c.args[0].split("&", 1)[-1].strip(" )")
                if target.isidentifier() and target not in param_space.get(c.function, {}):
                    local_space.setdefault(c.function, {}).setdefault(target, "global")
        # local pointers initialised from a known space
        for fname, names in self._assigns.items():
            for name, nodes in names.items():
                if name in local_space.get(fname, {}) or name in param_space.get(fname, {}):
                    continue
                ty = self._local_types.get(fname, {}).get(name, "")
                if not ty.endswith("*") and "auto" not in ty:
                    continue
                spaces = set()
                for d in nodes:
                    v = d.child_by_field_name("value") or d.child_by_field_name("right")
                    if v is None:
                        continue
                    base, _ = self._access_base(v)
                    spaces.add(self._space_of(base, fname, global_space, local_space,
                                              param_space))
                if len(spaces) == 1:
                    local_space.setdefault(fname, {})[name] = spaces.pop()
        self._param_space = param_space
        for a in self.accesses:
            a.space = self._space_of(a.array, a.function, global_space, local_space, param_space)

    @staticmethod
    def _space_of(name, fname, global_space, local_space, param_space) -> str:
        if fname is not None:
            if name in local_space.get(fname, {}):
                sp = local_space[fname][name]
                return {"register_array": "local", "static": "local"}.get(sp, sp)
            if name in param_space.get(fname, {}):
                sp = param_space[fname][name]
                return "unknown" if sp == "struct" else sp
            base = name.split(".", 1)[0].split("->", 1)[0]
            if base != name and param_space.get(fname, {}).get(base) in ("struct", "global"):
                return "global"  # a pointer member of a kernel's parameter struct
        if name in global_space:
            return {"device": "global", "static": "unknown"}.get(global_space[name],
                                                                global_space[name])
        return "unknown"

    # ----- call graph and reachability --------------------------------------------------
    def _build_call_graph(self) -> None:
        known = set(self.functions)
        methods_of: dict[str, set[str]] = {}
        by_short: dict[str, set[str]] = {}  # obj.run() may call any method named run
        for name in known:
            if "::" in name:
                cls, short = name.rsplit("::", 1)
                methods_of.setdefault(cls, set()).add(name)
                by_short.setdefault(short, set()).add(name)
        for f in self._fn_list:
            edges = self.call_graph.setdefault(f.name, set())
            if f.body is None:
                continue
            for x in self._iter(f.body):
                if x.type in ("identifier", "type_identifier", "field_identifier"):
                    t = self.text_of(x)
                    if x.type == "field_identifier" and t in by_short and \
                            not self._in_dead(x):
                        edges.update(by_short[t])
                    if (t in known or t in methods_of) and not self._in_dead(x):
                        if self.in_function(x) is not f or self._only_queried(x):
                            continue
                        if t in known and t != f.name:
                            edges.add(t)
                        for m in methods_of.get(t, ()):
                            edges.add(m)
                elif x.type == "qualified_identifier":
                    t = self.text_of(x)
                    if t in known and not self._in_dead(x):
                        edges.add(t)
        # struct methods call each other
        for name in known:
            if "::" in name:
                cls = name.rsplit("::", 1)[0]
                self.call_graph.setdefault(name, set()).update(methods_of.get(cls, set()) - {name})

    def _only_queried(self, ident: Node) -> bool:
        """Whether a function name is only an argument of an occupancy / attribute query
        (``cudaOccupancyMaxPotentialBlockSize(&g, &b, kern)``): that does not launch it."""
        p = ident.parent
        for _ in range(4):
            if p is None:
                return False
            if p.type == "argument_list":
                call = p.parent
                return call is not None and call.type == "call_expression" and \
                    call_category(self._callee_name(call)[0]) == "occupancy"
            p = p.parent
        return False

    def _compute_reachability(self) -> None:
        if self.entry_found:
            roots = [self.entry]
        else:
            roots = [f.name for f in self.host_functions if f.body is not None]
            if roots:
                self.warn(f"entry point '{self.entry}' not found: every host function is a root")
            else:
                roots = [f.name for f in self._fn_list]
                if self._fn_list:
                    self.warn(f"entry point '{self.entry}' not found and no host code: every "
                              "kernel and device function is a root")
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(self.call_graph.get(n, ()))
        self.reachable = seen

    # ----- queries ------------------------------------------------------------------------
    def in_function(self, node: Node) -> Function | None:
        """The innermost function definition containing ``node``."""
        key = (node.id, node.start_byte, node.end_byte)
        hit = self._fn_memo.get(key, _MISS)
        if hit is _MISS:
            hit = self._fn_memo[key] = self._in_function(node)
        return hit

    def _in_function(self, node: Node) -> Function | None:
        s = node.start_byte
        i = bisect.bisect_right(self._fn_starts, s)
        best = None
        for f in self._fn_list[max(0, i - 16):i][::-1]:
            if f.node.start_byte <= s < f.node.end_byte or (
                    f.node.start_byte == s and node.end_byte <= f.node.end_byte):
                if best is None or f.node.start_byte > best.node.start_byte:
                    best = f
                    break
        if best is None:
            for f in reversed(self._fn_list[:i]):
                if f.node.start_byte <= s < f.node.end_byte:
                    return f
        return best

    def function_of(self, name: str) -> Function | None:
        """The (first) function of that name."""
        fns = self.functions.get(name)
        return fns[0] if fns else None

    def is_reachable(self, node: Node) -> bool:
        """Inside a function reachable from the entry and not in a constant-false branch."""
        if self._dead and self._in_dead(node):
            return False
        f = self.in_function(node)
        if f is None:
            return True
        return f.name in self.reachable

    def reachable_kernels(self) -> list[Function]:
        return [k for k in self.kernels if k.name in self.reachable]

    def reachable_functions(self) -> list[Function]:
        return [f for f in self._fn_list if f.name in self.reachable]

    def _filter(self, items, fn, all):
        name = fn.name if isinstance(fn, Function) else fn
        out = []
        for it in items:
            if name is not None and it.function != name:
                continue
            if not all and not self.is_reachable(it.node):
                continue
            out.append(it)
        return out

    def loops_in(self, fn: Function | str | None = None, all: bool = False) -> list[Loop]:
        """Loops in ``fn`` (every function when None); reachable ones unless ``all``."""
        return self._filter(self.loops, fn, all)

    def accesses_in(self, fn: Function | str | None = None, all: bool = False) -> list[Access]:
        return self._filter(self.accesses, fn, all)

    def calls_in(self, fn: Function | str | None = None, all: bool = False) -> list[Call]:
        return self._filter(self.calls, fn, all)

    def launches_of(self, kernel: str | None = None, all: bool = False) -> list[Launch]:
        out = [la for la in self.launches if kernel is None or la.kernel == kernel]
        return out if all else [la for la in out if self.is_reachable(la.node)]

    def vars_in(self, fn: Function | str | None = None, space: str | None = None,
                all: bool = False) -> list[VarDecl]:
        name = fn.name if isinstance(fn, Function) else fn
        out = []
        for v in self.vars:
            if name is not None and v.function != name:
                continue
            if space is not None and v.space != space:
                continue
            if not all and not self.is_reachable(v.node):
                continue
            out.append(v)
        return out

    def query(self, pattern: str, capture: str = "evidence",
              reachable: bool = True) -> list[Node]:
        """Nodes captured as ``@capture`` by a tree-sitter query, in source order."""
        caps = QueryCursor(compile_query(pattern)).captures(self.root)
        nodes = caps.get(capture, [])
        out = [n for n in nodes if not reachable or self.is_reachable(n)]
        out.sort(key=lambda n: n.start_byte)
        return out

    # ----- constant folding ---------------------------------------------------------------
    def _expr_node(self, text: str) -> Node | None:
        src = ("int __sl_e = (" + text + ");").encode("utf8")
        tree = parser().parse(src)
        d = tree.root_node.named_children[0] if tree.root_node.named_child_count else None
        if d is None or d.type != "declaration":
            return None
        init = d.child_by_field_name("declarator")
        if init is None or init.type != "init_declarator":
            return None
        v = init.child_by_field_name("value")
        if v is None or v.has_error:
            return None
        self._tmp_src = src
        return v

    def eval_int(self, expr: str | Node | None, function: Function | None = None) -> int | None:
        """Fold an integer expression through literals, operators, sizeof, #define, constexpr,
        const int, template bindings/defaults and enumerators; None when not constant."""
        if expr is None:
            return None
        if isinstance(expr, str):
            key = (function.name if function else "") + "\0" + expr
            if key in self._expr_cache:
                return self._expr_cache[key]
            self._expr_cache[key] = None  # guards recursion
            node = self._expr_node(expr)
            val = None
            if node is not None:
                try:
                    val = self._eval(node, function, node_src=self._tmp_src)
                except RecursionError:  # generated code with thousands of terms
                    val = None
            self._expr_cache[key] = val
            return val
        try:
            return self._eval(expr, function, node_src=self.source)
        except RecursionError:
            return None

    def instance_values(self, expr: str | Node, function: Function,
                        _depth: int = 0) -> list[int] | None:
        """The value of ``expr`` in each instantiation of template ``function`` that the file
        makes (``k<4, 4><<<...>>>``, ``launch<64, 64, 16, 4, 4>(...)``, followed through callers
        that are templates themselves); None when some instantiation leaves it unknown.
        ``eval_int`` gives a value only when every instantiation agrees; this gives all of them
        (for example the outputs per thread of each tile configuration)."""
        plain = self.eval_int(expr, function)
        if plain is not None:
            return [plain]
        if _depth > 3 or not function.template_params:
            return None
        sites = self._template_sites.get(function.name, [])
        if not sites:
            return None
        values: list[int] = []
        for args, node in sites:
            caller = self.in_function(node)
            envs: list[dict[str, int]] = []
            per_param: list[list[int]] = []
            for i in range(len(function.template_params)):
                if i >= len(args):
                    per_param.append([])
                    continue
                vals = (self.instance_values(args[i], caller, _depth + 1)
                        if caller is not None else None)
                if vals is None:
                    v = self.eval_int(args[i])
                    vals = [v] if v is not None else []
                per_param.append(vals)
            # a caller instantiated several ways passes each way on: pair values by position
            width = max((len(v) for v in per_param), default=0)
            for k in range(width):
                envs.append({p: vals[k] if k < len(vals) else vals[-1]
                             for p, vals in zip(function.template_params, per_param, strict=True)
                             if vals})
            for env in envs:
                v = self._eval_with(expr, function, env)
                if v is None:
                    return None
                values.append(v)
        return values or None

    def trip_counts(self, loop: Loop) -> list[int] | None:
        """Trip count of ``loop`` in each instantiation of its (template) function: the plain
        ``trip_count`` when it is known, else the counts of ``for (int i = A; i < B; i += C)``
        with A and B folded per instantiation (``i < TM`` with TM = 4 and 2 gives [4, 2])."""
        if loop.trip_count is not None:
            return [loop.trip_count]
        fn = self.function_of(loop.function) if loop.function else None
        if fn is None or loop.var is None or loop.step_value is None or loop.step_op is None:
            return None
        node = loop.node
        init_n, cond_n = node.child_by_field_name("initializer"), node.child_by_field_name("condition")
        start = None
        if init_n is not None and init_n.type == "declaration":
            d = init_n.child_by_field_name("declarator")
            if d is not None and d.type == "init_declarator":
                start = d.child_by_field_name("value")
        elif init_n is not None and init_n.type == "assignment_expression":
            start = init_n.child_by_field_name("right")
        if start is None or cond_n is None or cond_n.type != "binary_expression" or \
                self.text_of(cond_n.child_by_field_name("left")) != loop.var:
            return None
        op = self.text_of(cond_n.child_by_field_name("operator"))
        starts = self.instance_values(start, fn)
        bounds = self.instance_values(cond_n.child_by_field_name("right"), fn)
        if not starts or not bounds:
            return None
        width = max(len(starts), len(bounds))
        counts = []
        for k in range(width):
            a = starts[min(k, len(starts) - 1)]
            b = bounds[min(k, len(bounds) - 1)]
            t = self._trip_count(a, b, op, loop.step_value, loop.step_op)
            if t is None:
                return None
            counts.append(t)
        return counts

    def _eval_with(self, expr: str | Node, function: Function, env: dict[str, int]) -> int | None:
        """``eval_int`` with template parameters of ``function`` bound to ``env``."""
        saved_bind = self._template_bindings.get(function.name)
        saved_cache = self._expr_cache
        self._template_bindings[function.name] = {**(saved_bind or {}),
                                                  **{k: str(v) for k, v in env.items()}}
        self._expr_cache = {}
        try:
            return self.eval_int(expr, function)
        finally:
            self._expr_cache = saved_cache
            if saved_bind is None:
                self._template_bindings.pop(function.name, None)
            else:
                self._template_bindings[function.name] = saved_bind

    def _lookup(self, name: str, fn: Function | None) -> int | None:
        if fn is not None:
            fc = self.function_constants.get(fn.name)
            if fc and name in fc:
                return fc[name]
            if any(p.name == name for p in fn.params):
                return None  # a parameter shadows file-level constants
            if name in self._local_types.get(fn.name, {}):
                return self._single_definition(name, fn)
            tb = self._template_bindings.get(fn.name)
            if tb and name in tb:
                if name in self._evaluating:
                    return None
                self._evaluating.add(name)
                try:
                    return self.eval_int(tb[name])
                finally:
                    self._evaluating.discard(name)
        if name in self.constants:
            return self.constants[name]
        m = self.macros.get(name)
        if m is not None and m.params is None and m.value_text:
            if name in self._evaluating:
                return None
            self._evaluating.add(name)
            try:
                return self.eval_int(m.value_text)
            finally:
                self._evaluating.discard(name)
        return None

    def _single_definition(self, name: str, fn: Function) -> int | None:
        """Value of a local that is initialised once and never assigned again
        (``int threads = 256;``), else None."""
        defs = self._assigns.get(fn.name, {}).get(name, [])
        if len(defs) != 1 or defs[0].type != "init_declarator" or \
                len(self._decls.get(fn.name, {}).get(name, [])) != 1:
            return None
        key = f"{fn.name}::{name}"
        if key in self._evaluating:
            return None
        self._evaluating.add(key)
        try:
            return self._eval(defs[0].child_by_field_name("value"), fn, self.source)
        finally:
            self._evaluating.discard(key)

    def _eval(self, n: Node, fn: Function | None, node_src: bytes) -> int | None:
        t = n.type
        txt = lambda x: node_src[x.start_byte:x.end_byte].decode("utf8", "replace")  # noqa: E731
        if t == "number_literal":
            s = txt(n)
            if any(ch in s for ch in ".eEpP") and not s.lower().startswith("0x"):
                return None
            if s.lower().startswith("0x") and ("." in s or "p" in s.lower()):
                return None
            return _int_literal(s)
        if t == "preproc_defined":
            ident = next((c for c in n.named_children if c.type == "identifier"), None)
            d = self._pp_defined(txt(ident), n) if ident is not None else None
            return None if d is None else int(d)
        if t == "true":
            return 1
        if t in ("false", "null", "nullptr"):
            return 0
        if t == "char_literal":
            s = txt(n)
            return ord(s[1]) if len(s) == 3 else None
        if t == "identifier":
            return self._lookup(txt(n), fn)
        if t == "qualified_identifier":
            nm = n.child_by_field_name("name")
            return self._lookup(txt(nm), fn) if nm is not None else None
        if t in ("parenthesized_expression", "condition_clause"):
            kids = n.named_children
            return self._eval(kids[0], fn, node_src) if len(kids) == 1 else None
        if t == "unary_expression":
            op = txt(n.child_by_field_name("operator"))
            v = self._eval(n.child_by_field_name("argument"), fn, node_src)
            if v is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(op)
        if t == "binary_expression":
            op = txt(n.child_by_field_name("operator"))
            a = self._eval(n.child_by_field_name("left"), fn, node_src)
            if a is None:
                return None
            if op == "&&" and not a:
                return 0
            if op == "||" and a:
                return 1
            b = self._eval(n.child_by_field_name("right"), fn, node_src)
            if b is None or op not in _BINOPS:
                return None
            return _BINOPS[op](a, b)
        if t == "conditional_expression":
            c = self._eval(n.child_by_field_name("condition"), fn, node_src)
            if c is None:
                return None
            return self._eval(n.child_by_field_name("consequence" if c else "alternative"),
                              fn, node_src)
        if t == "sizeof_expression":
            ty = n.child_by_field_name("type")
            if ty is not None:
                inner = ty.child_by_field_name("type")
                decl = ty.child_by_field_name("declarator")
                if decl is not None and "pointer" in decl.type:
                    return 8
                tt = txt(inner) if inner is not None else txt(ty)
                if fn is not None and tt in self._template_bindings.get(fn.name, {}):
                    tt = self._template_bindings[fn.name][tt]  # sizeof(T) with T = float
                return type_size(self.type_aliases.get(tt, tt))
            val = n.child_by_field_name("value")
            if val is not None:
                name = txt(val).strip("() ")
                if fn is not None and name in self._template_bindings.get(fn.name, {}):
                    name = self._template_bindings[fn.name][name]
                if type_size(self.type_aliases.get(name, name)) is not None:
                    return type_size(self.type_aliases.get(name, name))  # sizeof(float4)
                for v in self.vars:
                    if v.name == name and v.size_bytes is not None:
                        return v.size_bytes
                lt = self._local_types.get(fn.name if fn else "", {}).get(name)
                if lt:
                    return 8 if lt.endswith("*") else type_size(lt)
            return None
        if t == "cast_expression":
            return self._eval(n.child_by_field_name("value"), fn, node_src)
        if t == "call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            a = args.named_children if args is not None else []
            if f is None:
                return None
            if f.type == "template_function" and txt(f.child_by_field_name("name")) in (
                    "static_cast", "reinterpret_cast") and len(a) == 1:
                return self._eval(a[0], fn, node_src)
            fname = txt(f)
            if fname in ("min", "max", "std::min", "std::max", "umin", "umax") and len(a) == 2:
                x, y = (self._eval(v, fn, node_src) for v in a)
                if x is None or y is None:
                    return None
                return min(x, y) if "min" in fname else max(x, y)
            if fname in ("int", "unsigned", "size_t") and len(a) == 1:
                return self._eval(a[0], fn, node_src)
            m = self.macros.get(fname)
            if m is not None and m.params is not None and len(m.params) == len(a):
                return self._eval_fn_macro(m, [txt(x) for x in a], fn)
            return None
        return None

    def _eval_fn_macro(self, m: Macro, args: list[str], fn: Function | None) -> int | None:
        """Expand a function-like macro by substituting its parameters token-wise."""
        node = self._expr_node(m.value_text)
        if node is None:
            return None
        src = self._tmp_src
        pieces = []
        last = node.start_byte
        sub = dict(zip(m.params, args, strict=True))
        for x in self._iter(node):
            if x.type == "identifier" and x.child_count == 0:
                name = src[x.start_byte:x.end_byte].decode()
                if name in sub:
                    pieces.append(src[last:x.start_byte].decode())
                    pieces.append("(" + sub[name] + ")")
                    last = x.end_byte
        pieces.append(src[last:node.end_byte].decode())
        if m.name in self._evaluating:
            return None
        self._evaluating.add(m.name)
        try:
            return self.eval_int("".join(pieces), fn)
        finally:
            self._evaluating.discard(m.name)

    # ----- thread indices ---------------------------------------------------------------
    def uses_thread_index(self, node_or_text: Node | str) -> bool:
        """Whether an expression reads threadIdx/blockIdx or a variable derived from them."""
        if isinstance(node_or_text, str):
            node = self._expr_node(node_or_text)
            if node is None:
                return any(b in node_or_text for b in ("threadIdx", "blockIdx"))
            src, fn = self._tmp_src, None
        else:
            node, src, fn = node_or_text, self.source, self.in_function(node_or_text)
        tiv = self.thread_index_vars(fn) if fn is not None else set()
        for x in self._iter(node):
            if x.type == "identifier":
                name = src[x.start_byte:x.end_byte].decode("utf8", "replace")
                if name in ("threadIdx", "blockIdx") or name in tiv:
                    return True
            elif x.type == "call_expression":
                name = src[x.start_byte:x.end_byte].decode("utf8", "replace")
                if "thread_rank" in name or "this_grid().thread_rank" in name:
                    return True
        return False

    def thread_index_vars(self, fn: Function | str) -> set[str]:
        """Variables of ``fn`` assigned from threadIdx/blockIdx/blockDim expressions, followed
        through simple assignments."""
        f = self.function_of(fn) if isinstance(fn, str) else fn
        if f is None:
            return set()
        if f.name in self._tiv_cache:
            return self._tiv_cache[f.name]
        assigns = self._assigns.get(f.name, {})
        rhs: dict[str, list[Node]] = {}
        for name, nodes in assigns.items():
            for d in nodes:
                v = d.child_by_field_name("value") or d.child_by_field_name("right")
                if v is not None:
                    rhs.setdefault(name, []).append(v)
        ids: dict[str, set[str]] = {}
        for name, vs in rhs.items():
            s: set[str] = set()
            for v in vs:
                stack = [v]
                while stack:
                    x = stack.pop()
                    if x.type == "subscript_expression":
                        continue  # a value loaded from memory is data, not an index
                    if x.type == "identifier":
                        s.add(self.text_of(x))
                    elif x.type == "call_expression" and "thread_rank" in self.text_of(x):
                        s.add("threadIdx")
                    stack.extend(x.named_children)
            ids[name] = s
        found: set[str] = set()
        seeds = {"threadIdx", "blockIdx", "blockDim"}
        changed = True
        while changed:
            changed = False
            for name, s in ids.items():
                if name not in found and (s & seeds or s & found):
                    found.add(name)
                    changed = True
        self._tiv_cache[f.name] = found
        return found

    # ----- tree-sitter stride estimate ---------------------------------------------------
    def _estimate_strides(self) -> None:
        extents: dict[tuple[str | None, str], list[int | None]] = {}
        for v in self.vars:
            extents[(v.function, v.name)] = v.dim_values
        for a in self.accesses:
            f = self.function_of(a.function) if a.function else None
            if a.index_node is None:  # *p
                coef = Fraction(0)
            else:
                nodes = self._index_nodes(a) if len(a.indices) > 1 else [a.index_node]
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

    @staticmethod
    def _index_nodes(a: Access) -> list[Node]:
        """Index nodes of a[i][j]..., outermost first."""
        out: list[Node] = []
        n = a.node
        while n is not None and n.type == "subscript_expression":
            idx = n.child_by_field_name("indices")
            if idx is not None:
                out[:0] = idx.named_children
            n = n.child_by_field_name("argument")
        return out

    def _linearise(self, nodes: list[Node], dims: list[int | None], f: Function | None):
        return row_major([self.linear_tx(n, f)[0] for n in nodes], dims)

    def _defs_for(self, use: Node, name: str, fn: Function) -> list[Node]:
        """Definitions of the variable ``name`` seen at ``use``: the innermost visible
        declaration's initialiser plus assignments within its scope (block scoping, so two
        loops that each declare ``int c`` do not mix)."""
        defs = self._assigns.get(fn.name, {}).get(name, [])
        others = [a for a in defs if a.type != "init_declarator"]
        cands = [(d, sc) for d, sc in self._decls.get(fn.name, {}).get(name, [])
                 if sc.start_byte <= use.start_byte < sc.end_byte
                 and d.start_byte <= use.start_byte]
        if not cands:
            return others  # a parameter or a global, maybe reassigned
        d, sc = max(cands, key=lambda c: (c[1].start_byte, c[0].start_byte))
        inits = [d] if d.type == "init_declarator" else []
        return inits + [a for a in others if sc.start_byte <= a.start_byte < sc.end_byte]

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
            if _at is None:
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
            arg = txt(node.child_by_field_name("argument"))
            fld = txt(node.child_by_field_name("field"))
            if arg == "threadIdx":
                return (Fraction(1) if fld == "x" else zero, None)
            if arg in THREAD_BUILTINS:
                return (zero, None)
            return (zero, None) if lin(node.child_by_field_name("argument"))[0] == 0 \
                else (UNKNOWN, None)
        if t in ("identifier", "qualified_identifier"):
            name = txt(node)
            if foreign and name in _env:
                return _env[name]
            c = ev(node)
            if c is not None:
                return (zero, c)
            if fn is None:
                return (zero, None)
            defs = self._defs_for(_at or node, name, fn)
            if not defs:
                if self._lambda_param(_at or node, name):
                    return (UNKNOWN, None)  # thrust::for_each(..., [=] __device__ (int i))
                return (zero, None)  # parameters and unknown names are uniform across threads
            coefs = []
            for d in defs:
                if d.type == "update_expression":
                    continue
                v = d.child_by_field_name("value") or d.child_by_field_name("right")
                if v is None:
                    continue
                op = self.text_of(d.child_by_field_name("operator")) \
                    if d.type == "assignment_expression" else "="
                sub = self.linear_tx(v, fn, _depth + 1)
                if op == "=":
                    coefs.append(sub[0])
                elif sub[0] != 0:
                    return (UNKNOWN, None)
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
            if any(w in callee for w in ("rank", "lane", "thread", "atomic")):
                return (UNKNOWN, None)  # thread_rank(), __lane_id(), atomics: thread-dependent
            subs = [lin(x) for x in argn]
            if all(x[0] == 0 for x in subs):
                return (zero, ev(node))
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

    @staticmethod
    def _lambda_param(use: Node, name: str) -> bool:
        """Whether ``name`` at ``use`` is a parameter of an enclosing lambda."""
        p = use.parent
        while p is not None and p.type != "function_definition":
            if p.type == "lambda_expression":
                decl = p.child_by_field_name("declarator")
                params = decl.child_by_field_name("parameters") if decl is not None else None
                for prm in (params.named_children if params is not None else []):
                    if _declarator_name(prm.child_by_field_name("declarator"))[0] == name:
                        return True
            p = p.parent
        return False

    def _macro_body(self, m: Macro) -> Node | None:
        """The parsed expression of a function-like macro's body (cached)."""
        if m.name not in self._macro_bodies:
            self._macro_bodies[m.name] = self._expr_node(m.value_text) if m.value_text else None
        return self._macro_bodies[m.name]


def build_model(source: str | bytes, path: str = "<string>", entry: str = "solution_compute",
                index: bool = True) -> ProgramModel:
    """Parse ``source`` once and build its :class:`ProgramModel`.

    Parameters
    ----------
    source : str or bytes
        CUDA source text.
    path : str
        Name used in warnings and evidence.
    entry : str
        Entry point for reachability (``solution_compute`` by default).
    index : bool
        Run the libclang index pass (:mod:`strategylens.indexing`) to refine access strides.

    Returns
    -------
    ProgramModel
    """
    model = ProgramModel(source, path, entry)
    if index:
        try:
            from strategylens import indexing
            indexing.annotate(model)
        except ImportError as exc:  # libclang wheel missing
            model.index_status = f"unavailable: {exc}"
    else:
        model.index_status = "unavailable: disabled (--no-index)"
    return model


_MAX_WARNINGS = 20
_INDEXED: list = []  # the models built last in this process, whose node lists iter_nodes reuses
_MISS = object()


def iter_nodes(node: Node) -> Iterable[Node]:
    """Pre-order over a subtree, not entering comments and string literals (a list slice when
    the node belongs to a recently built model)."""
    nid = node.id
    for m in _INDEXED:
        i = m._flat_pos.get(nid)
        if i is not None:
            n = m._flat[i]
            if n.start_byte == node.start_byte and n.end_byte == node.end_byte and \
                    n.type == node.type:
                return m._flat[i:m._flat_end[i]]
    return _walk_nodes(node)


def _walk_nodes(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n.child_count and n.type not in _SKIP_TYPES:
            stack.extend(reversed(n.children))
