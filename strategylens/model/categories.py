"""What a call or a type is: call categories (alloc, copy, sync, atomic, shuffle ...) and the
byte sizes of basic and CUDA vector types."""

from __future__ import annotations

import re

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


# a project's atomic helpers: math::atomic::add, atomics::max, atomic_add, atomic_cas
_ATOMIC_HELPER = re.compile(r"(add|sub|min|max|inc|dec|and|or|xor|exch|exchange|cas)")


def atomic_helper(name: str) -> bool:
    """Whether a callee's name says it is an atomic operation though it is no CUDA atomic:
    an operation in an ``atomic`` namespace or an ``atomic_`` prefix.

    >>> atomic_helper("math::atomic::add"), atomic_helper("atomic_max"), atomic_helper("add")
    (True, True, False)
    """
    parts = name.split("::")
    base = parts[-1].lower()
    if len(parts) > 1 and parts[-2].lower() in ("atomic", "atomics"):
        return _ATOMIC_HELPER.fullmatch(base) is not None
    return base.startswith("atomic_") and _ATOMIC_HELPER.fullmatch(base[7:]) is not None


_PREFIX_CATEGORY = [("cublas", "cublas"), ("cusparse", "cusparse"), ("cusolver", "cusolver"),
                    ("cufft", "cufft"), ("curand", "curand"), ("thrust::", "thrust"),
                    ("cub::", "cub"), ("cudaGraph", "graph"), ("cudaOccupancy", "occupancy")]


THREAD_BUILTINS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def position_builtin(name: str) -> str | None:
    """The CUDA built-in expression that a helper from a header the file lacks returns, read
    from its name (its words end in an axis): the thread's index in the block
    (``thread::local::id::x``, ``thread_idx_x``) or in the grid (``thread::global::id::x``), the
    block's index (``block::id::y``) or size (``block::size::x``, ``block_dim_x``); else None.

    >>> position_builtin("gcuda::thread::global::id::x")
    '(blockIdx.x * blockDim.x + threadIdx.x)'
    >>> position_builtin("threadIdx_x"), position_builtin("block::size::y"), position_builtin("size")
    ('threadIdx.x', 'blockDim.y', None)
    """
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    if len(words) < 3 or words[-1] not in ("x", "y", "z"):
        return None
    a, ws = words[-1], set(words[:-1])
    ident = bool(ws & {"id", "idx", "index"})
    if ws & {"warp", "lane", "grid", "num", "count"}:
        return None
    if "thread" in ws and ident and not ws & {"block", "size", "dim"}:
        return f"(blockIdx.{a} * blockDim.{a} + threadIdx.{a})" if "global" in ws \
            else f"threadIdx.{a}"
    if "block" in ws and "thread" not in ws:
        if ident and not ws & {"size", "dim"}:
            return f"blockIdx.{a}"
        if ws & {"size", "dim"} and not ident:
            return f"blockDim.{a}"
    return None


_MEMORY_HELPER = re.compile(r"(?:^|_)(load|store|ld|st|copy)(?:_|\d|$)|"
                            r"^(load|store|copy)(?=[A-Z0-9]|$)", re.IGNORECASE)


def memory_helper(name: str) -> bool | None:
    """Whether a callee's name says it loads (False) or stores (True) memory through a
    pointer argument: ``load_global``, ``mem_access::store_global``, ``ld_vec``, ``storeTile``,
    ``copy_vector`` (a copy stores to its first address and loads the others); None for any
    other name.

    >>> memory_helper("mem_access::load_global"), memory_helper("storeTile"), memory_helper("last")
    (False, True, None)
    """
    base = name.rsplit("::", 1)[-1]
    m = _MEMORY_HELPER.search(base)
    if m is None or base.startswith("__"):
        return None
    word = (m.group(1) or m.group(2)).lower()
    return word in ("store", "st", "copy")  # a copy writes its first address, reads the rest


# names a project gives its own wrappers of the warp intrinsics (in a header the file lacks)
WARP_WRAPPERS = {**dict.fromkeys(("shuffle", "shuffle_up", "shuffle_down", "shuffle_xor",
                                  "shfl_sync", "shfl_down_sync", "shfl_up_sync", "shfl_xor_sync"),
                                 "shuffle"),
                 **dict.fromkeys(("ballot", "ballot_sync", "any_sync", "all_sync"), "vote")}


def reduction_helper(name: str) -> str | None:
    """``'warp'`` or ``'block'`` when a helper's name says it reduces across a warp or a block
    (``warp_reduce_sum``, ``warpReduceAllSum``, ``block_reduce<MAX>``, ``blockReduceSum``,
    a ``WarpScan`` class),
    else None; for helpers defined in a header the file does not bring.

    >>> reduction_helper("warpReduceAllSum"), reduction_helper("reduce::partitioned_block")
    ('warp', 'block')
    >>> reduction_helper("reduce"), reduction_helper("thrust::reduce")
    (None, None)
    """
    parts = name.replace("_", "").lower().split("::")
    base, scopes = parts[-1], parts[:-1]
    for scope in ("warp", "block"):
        if base.startswith((scope + "reduce", scope + "allreduce", scope + "scan")):
            return scope
        # reduce::block<Add>(tb, v), reduce::partitioned_block<...>(tb, warp, v)
        if any("reduce" in sc for sc in scopes) and scope in base:
            return scope
    return None


# CUB's warp- and block-wide collectives by class (cub::WarpReduce<T>, hipcub::BlockScan<T, N>):
# a warp's collectives are shuffles; a block scan is a scan, not a tree reduction; a library's
# block reduction is a tree reduction whose shuffles are the library's (unlike a project's own
# block_reduce helper); a block's radix or merge sort is a parallel sort
_COLLECTIVES = {"WarpReduce": "shuffle", "WarpScan": "shuffle",
                "BlockReduce": "library_block_reduce", "BlockScan": "block_scan",
                "BlockRadixSort": "block_sort", "BlockMergeSort": "block_sort",
                "WarpMergeSort": "block_sort"}


def collective_category(type_text: str | None) -> str | None:
    """Category of a call on a CUB-style collective class, whatever namespace or alias names it.

    >>> collective_category("cub::WarpReduce<float>"), collective_category("ns::BlockScan<int, 256>")
    ('shuffle', 'block_scan')
    """
    if not type_text:
        return None
    base = type_text.split("<", 1)[0].strip().rsplit("::", 1)[-1]
    return _COLLECTIVES.get(base)


def helper_category(name: str, receiver_type: str | None = None) -> str | None:
    """Category of a device helper from a header the file lacks: reductions named for a warp or
    a block (a block scan is ``block_scan``), a project's warp wrappers (``popsift::shuffle``,
    ``popsift::ballot``) and collectives classes (``hoomd::detail::WarpScan<T, N>().ExclusiveSum``)."""
    cat = collective_category(receiver_type) or collective_category(name)
    if cat:
        return cat
    for text in (name, receiver_type):
        scope = reduction_helper(text) if text else None
        if scope == "block" and "scan" in text.split("<", 1)[0].lower():
            return "block_scan"
        if scope:
            return {"warp": "shuffle", "block": "block_reduce"}[scope]
    return WARP_WRAPPERS.get(name.rsplit("::", 1)[-1])


# device functions a project's precision- or version-neutral macro may stand for, beside those
# with a category above
_DEVICE_INTRINSICS = {"rsqrt", "rsqrtf", "fma", "fmaf", "__popc", "__popcll", "__ffs", "__ffsll",
                      "__clz", "__clzll", "__brev"}


def capitalised_intrinsic(name: str) -> str:
    """The intrinsic that a macro in capitals, from a header the file lacks, stands for when
    its name is the intrinsic's (``SHFL`` -> ``__shfl``, ``BALLOT`` -> ``__ballot``, ``RSQRT``
    -> ``rsqrt``, ``POPC`` -> ``__popc``); else ``name`` itself.

    >>> capitalised_intrinsic("SHFL"), capitalised_intrinsic("RSQRT"), capitalised_intrinsic("LOG")
    ('__shfl', 'rsqrt', 'LOG')
    """
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
        return name
    for cand in ("__" + name.lower(), name.lower()):
        if cand in _DEVICE_INTRINSICS or _EXACT_CATEGORY.get(cand) in (
                "shuffle", "vote", "fast_math", "ldg"):
            return cand
    return name


def call_category(name: str, receiver_type: str | None = None) -> str | None:
    """Category of a callee name (see the module docstring); ``receiver_type`` is the declared
    type of the object for method calls (``grid.sync()`` on a ``grid_group``)."""
    for lib in ("thrust::", "cub::"):  # a wrapped namespace: amgx::thrust::count_if
        i = name.find("::" + lib)
        if i >= 0:
            name = name[i + 2:]
    base = name.rsplit("::", 1)[-1]
    if name in _EXACT_CATEGORY:
        return _EXACT_CATEGORY[name]
    if name.startswith("hip") and "cuda" + name[3:] in _EXACT_CATEGORY:  # HIP's spelling
        return _EXACT_CATEGORY["cuda" + name[3:]]
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
        if collective_category(rt):
            return collective_category(rt)
        if rt.startswith("cub::"):
            return "cub"
        if rt.startswith("thrust::"):
            return "thrust"
    if base in _ATOMIC_BASE or any(base.startswith(a + "_") for a in _ATOMIC_BASE) or \
            atomic_helper(name):
        return "atomic"
    if name in ("cg::sync", "cooperative_groups::sync"):
        return "sync_threads"
    if name.startswith(("cub::", "hipcub::")) and collective_category(name):
        return collective_category(name)
    for prefix, cat in _PREFIX_CATEGORY:
        if name.startswith(prefix) or (prefix.endswith("::") and name.startswith("::" + prefix)):
            return cat
    if base in _EXACT_CATEGORY and ("::" in name) and base.startswith("__"):
        return _EXACT_CATEGORY[base]
    return None


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


# element widths in bytes of scalar types (array elements, casts); unlike ``type_size`` it has no
# vector types and knows ``long double``
SCALAR_BYTES = {
    "double": 8, "long double": 16, "float": 4, "int": 4, "unsigned": 4, "unsigned int": 4,
    "int32_t": 4, "uint32_t": 4, "long": 8, "long long": 8, "int64_t": 8, "uint64_t": 8,
    "unsigned long long": 8, "size_t": 8, "short": 2, "unsigned short": 2, "int16_t": 2,
    "uint16_t": 2, "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1,
    "bool": 1, "__half": 2, "half": 2, "__nv_bfloat16": 2, "nv_bfloat16": 2,
}
# a simulation code's precision-neutral vector types from a header the file lacks (HOOMD-blue's
# Scalar4, OpenMM's and UAMMD's real4): as wide as float2 / float4 at least
VECTOR_ALIAS = re.compile(r"(?:Scalar|scalar|Real|real|mixed)([24])")

# widths in bits of the 8- and 16-byte vector types (vectorised loads and stores)
VECTOR_BITS = {
    "float2": 64, "int2": 64, "uint2": 64, "short4": 64, "ushort4": 64, "char8": 64,
    "long1": 64, "double1": 64,
    "float4": 128, "int4": 128, "uint4": 128, "double2": 128, "longlong2": 128,
    "ulonglong2": 128, "long2": 128, "ulong2": 128,
}
