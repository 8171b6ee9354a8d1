"""Program model facts on inline sources: exact values."""

from pathlib import Path

import pytest

from strategylens.model import build_model, call_category

FIXTURES = Path(__file__).parent / "fixtures" / "tagger"

SRC = r"""
#include <cuda_runtime.h>
#define BLOCK 256
#define TILE (BLOCK / 8)
#define USE_OLD 0
constexpr int UNROLL = 4;
static const int N2 = 1 << 10;
enum { WARPS = 8, LANES = 32, NEXT };
__constant__ float coeffs[16];

template <int BS = 128>
__global__ void __launch_bounds__(256, 2) scale(const float* __restrict__ in, float* out, int n) {
    __shared__ float tile[TILE][TILE + 1];
    extern __shared__ float dyn[];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int i = tid;
    // out[tid] = __shfl_down_sync(0, 1, 2);  a comment
    const char* s = "cudaMemcpy(out, in, 4, x); __syncthreads();";
    #pragma unroll UNROLL
    for (int k = 0; k < 16; k += 2) {
        tile[threadIdx.y][threadIdx.x] = in[i * 4 + k];
        __syncthreads();
    }
    if (0) { out[tid] = 1.0f; }
    if (USE_OLD) { atomicAdd(&out[1], 2.0f); }
    if (tid < n) out[tid] = in[tid] * coeffs[0];
    float4 v = reinterpret_cast<const float4*>(in)[tid];
    atomicAdd(&out[0], v.x);
}

__device__ float helper(float x) { return x * x; }

__global__ void unused(float* p) { p[threadIdx.x] = helper(1.0f); }

void solution_compute(int n, const float* h_in, float* h_out) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaStream_t st;
    cudaStreamCreate(&st);
    dim3 block(TILE, 4);
    scale<BLOCK><<<(n + BLOCK - 1) / BLOCK, block, TILE * sizeof(float), st>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
#if 0
    unused<<<1, 32>>>(d_in);
#endif
}
"""


@pytest.fixture(scope="module")
def m():
    return build_model(SRC, "inline.cu", index=False)


def test_functions_and_qualifiers(m):
    scale = m.function_of("scale")
    assert scale.is_kernel and not scale.is_host
    assert scale.qualifiers == {"__global__"}
    assert scale.template_params == ["BS"]
    assert scale.launch_bounds == ("256", "2")
    assert [(p.name, p.is_pointer, p.is_const, p.is_restrict) for p in scale.params] == [
        ("in", True, True, True), ("out", True, False, False), ("n", False, False, False)]
    assert [k.name for k in m.kernels] == ["scale", "unused"]
    assert [f.name for f in m.device_functions] == ["helper"]
    assert [f.name for f in m.host_functions] == ["solution_compute"]
    assert (scale.line_start, scale.line_end) == (12, 29)


def test_launch_configuration(m):
    live = m.launches_of("scale")
    assert len(live) == 1
    la = live[0]
    assert (la.kernel, la.caller, la.line, la.kind) == ("scale", "solution_compute", 42, "chevron")
    assert (la.grid, la.block, la.smem, la.stream) == (
        "(n + BLOCK - 1) / BLOCK", "block", "TILE * sizeof(float)", "st")
    assert la.grid_value is None
    assert la.block_value == (32, 4)
    assert la.template_args == ["BLOCK"]
    assert m.eval_int(la.smem, m.function_of("solution_compute")) == 128
    # the launch under `#if 0` exists but is not reachable
    assert [x.kernel for x in m.launches_of(all=True)] == ["scale", "unused"]
    assert m.launches_of("unused") == []


def test_constants(m):
    assert m.constants["BLOCK"] == 256
    assert m.constants["TILE"] == 32
    assert m.constants["UNROLL"] == 4
    assert m.constants["N2"] == 1024
    assert (m.constants["WARPS"], m.constants["LANES"], m.constants["NEXT"]) == (8, 32, 33)
    assert m.macros["TILE"].value_text == "(BLOCK / 8)"
    scale = m.function_of("scale")
    assert m.eval_int("BS * 2", scale) == 512  # bound from the launch scale<BLOCK>
    assert m.eval_int("sizeof(float4) + (7 >> 1) % 3 - ~0", None) == 16 + 0 + 1
    assert m.eval_int("n + 1", scale) is None
    literals = ["0xFF", "0xffffffff", "017", "0b101", "256u", "1024UL", "2.0f", "1e3"]
    assert [m.eval_int(x) for x in literals] == [255, 4294967295, 15, 5, 256, 1024, None, None]
    assert m.eval_int("BLOCK > 128 ? 1 : 0") == 1 and m.eval_int("min(TILE, 8)") == 8


def test_shared_and_constant_declarations(m):
    got = {(v.name, v.space, tuple(v.dim_values), v.size_bytes, v.extern) for v in m.vars}
    assert got == {("coeffs", "constant", (16,), 64, False),
                   ("tile", "shared", (32, 33), 32 * 33 * 4, False),
                   ("dyn", "shared", (None,), 128, True)}  # from the launch smem


def test_loops_and_pragmas(m):
    (lp,) = m.loops_in("scale")
    assert (lp.kind, lp.var, lp.step_value, lp.bound_value, lp.trip_count) == ("for", "k", 2, 16, 8)
    assert lp.unroll == 4  # `#pragma unroll UNROLL` folded through constexpr
    assert lp.has_sync and lp.depth == 0 and lp.parent is None
    assert [(p.kind, p.value, p.line) for p in m.pragmas] == [("unroll", 4, 19)]


def test_loop_forms():
    src = """
__global__ void k(float* a, int n) {
    for (int s = 16; s > 0; s >>= 1) a[s] = 0;
    #pragma unroll
    for (int j = 0; j <= 7; j++) { for (int q = 10; q > 0; q -= 3) a[q] = 1; }
    #pragma unroll 1
    for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] = 2;
    int w = 0; while (w < 5) { w++; }
}
"""
    m = build_model(src, index=False, entry="k")
    got = [(lp.var, lp.step_op, lp.step_value, lp.trip_count, lp.unroll, lp.depth)
           for lp in m.loops]
    assert got == [("s", ">>", 1, 5, None, 0), ("j", "+", 1, 8, "full", 0),
                   ("q", "-", -3, 4, None, 1), ("i", "+", None, None, 1, 0),
                   ("w", "+", 1, None, None, 0)]
    assert m.loops[2].parent is m.loops[1]
    assert (m.loops[4].kind, m.loops[4].bound_value) == ("while", 5)


def test_calls_and_categories(m):
    calls = [(c.name, c.category, c.function) for c in m.calls_in()]
    assert calls == [
        ("__syncthreads", "sync_threads", "scale"), ("atomicAdd", "atomic", "scale"),
        ("cudaMalloc", "alloc", "solution_compute"), ("cudaMemcpy", "copy", "solution_compute"),
        ("cudaStreamCreate", "stream", "solution_compute"),
        ("cudaDeviceSynchronize", "device_sync", "solution_compute")]
    # the atomic in `if (USE_OLD)` is a call, but not a reachable one
    assert [c.line for c in m.calls_in(all=True) if c.name == "atomicAdd"] == [25, 28]


def test_categories_of_names():
    assert call_category("cub::DeviceScan::ExclusiveSum") == "cub"
    assert call_category("thrust::sort") == "thrust"
    assert call_category("cublasSgemm_v2") == "cublas"
    assert call_category("cudaGraphLaunch") == "graph"
    assert call_category("cudaMallocHost") == "pinned"
    assert call_category("__shfl_xor_sync") == "shuffle"
    assert call_category("__ballot_sync") == "vote"
    assert call_category("sync", "cg::grid_group") == "grid_sync"
    assert call_category("__ldg") == "ldg"
    assert call_category("__expf") == "fast_math"
    assert call_category("atomicAdd_block") == "atomic"
    assert call_category("printf") is None


def test_comments_and_strings_produce_nothing(m):
    assert all(c.name != "__shfl_down_sync" for c in m.calls_in(all=True))
    assert all(c.name != "cudaMemcpy" or c.function == "solution_compute"
               for c in m.calls_in(all=True))
    assert m.query("((identifier) @evidence (#eq? @evidence \"__shfl_down_sync\"))") == []


def test_reachability(m):
    assert m.entry_found
    assert m.reachable == {"solution_compute", "scale"}
    assert m.call_graph["solution_compute"] == {"scale"}
    assert m.call_graph["unused"] == {"helper"}
    assert [k.name for k in m.reachable_kernels()] == ["scale"]
    dead = [a for a in m.accesses_in("scale", all=True) if a.line == 24]
    assert len(dead) == 1 and not m.is_reachable(dead[0].node)
    live = [(a.array, a.line) for a in m.accesses_in("unused")]
    assert live == []  # an unlaunched kernel's accesses are filtered


def test_missing_entry_makes_host_functions_roots():
    m = build_model(SRC, index=False, entry="main")
    assert not m.entry_found
    assert m.reachable == {"solution_compute", "scale"}
    assert any("entry point 'main' not found" in w for w in m.warnings)


def test_kernel_only_file_treats_kernels_as_roots():
    m = build_model("__global__ void k(float* a) { a[threadIdx.x] = 0; }", index=False)
    assert m.reachable == {"k"}


def test_accesses_spaces_and_writes(m):
    got = [(a.array, a.index_text, a.space, a.is_write, a.cast_type)
           for a in m.accesses_in("scale")]
    assert got == [("tile", "threadIdx.x", "shared", True, None),
                   ("in", "i * 4 + k", "global", False, None),
                   ("out", "tid", "global", True, None),
                   ("in", "tid", "global", False, None),
                   ("coeffs", "0", "constant", False, None),
                   ("in", "tid", "global", False, "float4"),
                   ("out", "0", "global", True, None)]
    assert m.accesses_in("scale")[0].indices == ["threadIdx.y", "threadIdx.x"]


def test_thread_index_vars(m):
    scale = m.function_of("scale")
    assert m.thread_index_vars(scale) == {"tid", "i"}
    assert m.uses_thread_index("blockIdx.x * 4")
    assert not m.uses_thread_index("n * 4")


def test_tree_sitter_strides(m):
    got = [(a.array, a.stride_tx, a.stride_source) for a in m.accesses_in("scale")]
    assert got == [("tile", 1, "tree-sitter"), ("in", 4, "tree-sitter"),
                   ("out", 1, "tree-sitter"), ("in", 1, "tree-sitter"),
                   ("coeffs", 0, "tree-sitter"), ("in", 1, "tree-sitter"),
                   ("out", 0, "tree-sitter")]


def test_device_param_space_from_call_site():
    src = """
__device__ float load(const float* p, int i) { return p[i]; }
__global__ void k(const float* g, float* o) {
    __shared__ float s[64];
    s[threadIdx.x] = load(g, threadIdx.x);
    o[threadIdx.x] = s[threadIdx.x];
}
void solution_compute(float* g, float* o) { k<<<1, 64>>>(g, o); }
"""
    m = build_model(src, index=False)
    assert [(a.function, a.array, a.space) for a in m.accesses_in()] == [
        ("load", "p", "global"), ("k", "s", "shared"), ("k", "o", "global"),
        ("k", "s", "shared")]
    assert m.reachable == {"solution_compute", "k", "load"}


def test_unknown_macro_degrades_per_node():
    src = """
FORCE_INLINE __device__ float sq(float x) { return x * x; }
__global__ void k(float* a) { __shared__ __align__(16) float s[32]; a[threadIdx.x] = sq(s[0]); }
void solution_compute(float* a) { k<<<1, 32>>>(a); }
"""
    m = build_model(src, index=False)
    assert m.degraded
    assert m.warnings == [
        "line 2: unknown macro 'FORCE_INLINE'; read as __forceinline__ from its name"]
    assert [v.name for v in m.vars] == ["s"] and m.vars[0].size_bytes == 128
    assert m.reachable == {"solution_compute", "k", "sq"}


def test_unbalanced_braces_are_noted():
    m = build_model("__global__ void k(float* a) { if (a) { a[0] = 1; }\n", index=False)
    assert m.unbalanced_braces == 1


def test_cooperative_launch_in_dead_else_branch():
    m = build_model((FIXTURES / "graph_coop.cu").read_text(), index=False)
    coop = [la for la in m.launches if la.kind == "cooperative"]
    assert [(la.kernel, la.grid_value, la.block_value) for la in coop] == [
        ("relax_all", (80,), (256,))]
    assert m.launches_of("relax_all") == []  # `if (USE_GRAPH)` with USE_GRAPH 1: else is dead
    assert m.reachable == {"solution_compute", "relax_step"}
    (grid_sync,) = [c for c in m.calls_in(all=True) if c.category == "grid_sync"]
    assert grid_sync.receiver == "grid"


def test_struct_methods_and_cub_typedef():
    m = build_model((FIXTURES / "thrust_cub.cu").read_text(), index=False)
    assert "square::operator()" in m.reachable
    cats = {(c.name, c.category) for c in m.calls_in("block_sum")}
    assert cats == {("Sum", "library_block_reduce"), ("BlockReduce", "library_block_reduce")}
    assert m.launches[0].block_value == (256,)


def test_preprocessor_branches():
    src = """#ifndef GUARD_H
#define GUARD_H
#define USE_FAST 1
__global__ void k(float* a) {
#ifdef USE_FAST
    a[threadIdx.x] = 1.0f;
#else
    a[threadIdx.x * 2] = 2.0f;
#endif
#if defined(USE_SLOW) || !defined(USE_FAST)
    a[0] = 3.0f;
#elif USE_FAST > 0
    a[1] = 4.0f;
#endif
#ifdef __CUDA_ARCH__
    a[2] = 5.0f;
#endif
}
#endif
void solution_compute(float* a) { k<<<1, 32>>>(a); }
"""
    m = build_model(src, index=False)
    assert [a.line for a in m.accesses_in("k")] == [6, 13, 16]
    assert [a.line for a in m.accesses_in("k", all=True)] == [6, 8, 11, 13, 16]


def test_namespaces_and_methods_are_reachable():
    src = """
namespace ops { __global__ void k(float* a) { a[threadIdx.x] = 0.0f; } }
struct Solver {
    float* d;
    void run(int n);
};
void Solver::run(int n) { ops::k<<<1, n>>>(d); }
void solution_compute(int n) { Solver s; s.run(n); }
"""
    m = build_model(src, index=False)
    assert [la.kernel for la in m.launches_of()] == ["k"]
    assert m.reachable == {"solution_compute", "Solver::run", "k"}


def test_local_constant_propagation_and_template_types():
    src = """
template <typename T, int TILE>
__global__ void k(T* a) {
    __shared__ T buf[TILE * 2];
    a[threadIdx.x] = buf[threadIdx.x] + (T)sizeof(T);
}
void solution_compute(int n, float* a) {
    int threads = 128;
    int blocks = (n + threads - 1) / threads;
    int cap = 64;
    if (blocks > cap) cap = blocks;
    k<float, 16><<<cap, threads>>>(a);
    k<float, 16><<<4, threads / 2>>>(a);
}
"""
    m = build_model(src, index=False)
    assert [(la.grid_value, la.block_value) for la in m.launches] == [
        (None, (128,)), ((4,), (64,))]
    (buf,) = m.vars
    assert (buf.dim_values, buf.size_bytes) == ([32], 128)
    assert m.eval_int("sizeof(T) * TILE", m.function_of("k")) == 64


def test_while_loop_and_occupancy_query_is_not_a_launch():
    src = """
__global__ void k(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) { a[i] = 0.0f; i += blockDim.x * gridDim.x; }
}
__global__ void queried(float* a) { a[0] = 1.0f; }
void solution_compute(float* a, int n) {
    int grid, block;
    cudaOccupancyMaxPotentialBlockSize(&grid, &block, queried);
    k<<<grid, block>>>(a, n);
}
"""
    m = build_model(src, index=False)
    (lp,) = m.loops
    assert (lp.kind, lp.var, lp.step, lp.step_op) == ("while", "i", "i += blockDim.x * gridDim.x",
                                                      "+")
    assert m.reachable == {"solution_compute", "k"}


def test_device_lambda_and_constant_initialiser():
    src = """
__constant__ float w[] = {0.25f, 0.5f, 0.25f};
void solution_compute(float* a, int n) {
    auto f = [=] __device__ (int i) { return a[i] * w[0]; };
    thrust::for_each(thrust::device, a, a + n, f);
}
"""
    m = build_model(src, index=False)
    assert (m.warnings, m.degraded) == ([], False)
    assert [(v.name, v.dim_values, v.size_bytes) for v in m.vars] == [("w", [3], 12)]
    assert [(c.name, c.category) for c in m.calls] == [("thrust::for_each", "thrust")]
    # the lambda body is device code; its parameter is not a uniform value
    assert [(a.array, a.space, a.stride_tx) for a in m.accesses] == [
        ("a", "unknown", None), ("w", "constant", 0)]


def test_cuda_malloc_targets_are_device_memory():
    src = """
void solution_compute(float* h, int n) {
    float* d;
    cudaMalloc((void**)&d, n * sizeof(float));
    thrust::for_each(thrust::device, d, d + n, [=] __device__ (float& x) { d[0] = x; });
}
"""
    m = build_model(src, index=False)
    assert [(a.array, a.space, a.stride_tx) for a in m.accesses] == [("d", "global", 0)]


def test_query_is_filtered_by_reachability():
    src = """
__global__ void used(float* a) { a[threadIdx.x] = 1.0f; __syncthreads(); }
__global__ void unused(float* a) { a[threadIdx.x] = 2.0f; __syncthreads(); }
void solution_compute(float* a) {
    used<<<1, 32>>>(a);
    if (false) { unused<<<1, 32>>>(a); }
}
"""
    m = build_model(src, index=False)
    q = '((call_expression function: (identifier) @evidence) (#eq? @evidence "__syncthreads"))'
    assert [m.line_of(n) for n in m.query(q)] == [2]
    assert [m.line_of(n) for n in m.query(q, reachable=False)] == [2, 3]
    used = m.function_of("used")
    (acc,) = m.accesses_in(used)
    assert m.uses_thread_index(acc.index_node)
    assert m.in_function(acc.node) is used


def test_members_of_kernel_parameter_structs_are_global():
    src = """
struct Params { const float* a; float* b; int n; };
__global__ void k(Params p, const Params* q) { int i = threadIdx.x; p.b[i] = p.a[i] + q->a[i]; }
void solution_compute(Params p) { k<<<1, 32>>>(p, 0); }
"""
    for index in (True, False):
        m = build_model(src, index=index)
        assert [(a.array, a.space, a.stride_tx) for a in m.accesses] == [
            ("p.b", "global", 1), ("p.a", "global", 1), ("q->a", "global", 1)]


def test_address_taken_locals_are_not_constants():
    src = """
__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }
void solution_compute(float* a) {
    int grid = 0, block = 256;
    cudaOccupancyMaxPotentialBlockSize(&grid, &block, k);
    int t = 128;
    k<<<grid, block>>>(a);
    k<<<1, t>>>(a);
}
"""
    m = build_model(src, index=False)
    assert [(la.grid_value, la.block_value) for la in m.launches] == [(None, None), ((1,), (128,))]


def test_define_with_trailing_comment_folds_to_its_value():
    from strategylens.model import build_model as _build

    m = _build('#define RB 4   // outputs per thread\n#define S "a//b" /* c */\n'
               '#define T (RB /* four */ * 2)\n__global__ void k() {}\n', index=False)
    assert (m.macros["RB"].value_text, m.eval_int("RB")) == ("4", 4)
    assert m.macros["S"].value_text == '"a//b"'
    assert m.eval_int("T") == 8


def test_pragma_between_loop_header_and_unbraced_body_keeps_nesting():
    from strategylens.model import build_model as _build

    src = ("__global__ void k(float* a) {\n"
           "    float acc[4][4];\n"
           "    for (int i = 0; i < 4; ++i)\n"
           "#pragma unroll 2\n"
           "        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;\n"
           "    a[threadIdx.x] = acc[1][1];\n"
           "}\n"
           "extern \"C\" void solution_compute(float* a) { k<<<1, 32>>>(a); }\n")
    m = _build(src, index=False)
    loops = {lp.var: lp for lp in m.loops}
    assert loops["j"].parent is loops["i"] and loops["j"].unroll == 2
    assert [(p.line, p.kind, p.value, p.function) for p in m.pragmas] == [(4, "unroll", 2, "k")]
    assert not m.tree.root_node.has_error


def test_template_values_per_instantiation():
    from strategylens.model import build_model as _build

    src = ("template <int TM, int TN>\n"
           "__global__ void tile(float* c) {\n"
           "    float acc[TM][TN];\n"
           "    for (int i = 0; i < TM; ++i) acc[i][0] = 0.0f;\n"
           "    c[threadIdx.x] = acc[0][0];\n"
           "}\n"
           "template <int A, int B>\n"
           "void launch(float* c) { tile<A, B><<<1, 64>>>(c); }\n"
           "extern \"C\" void solution_compute(float* c, int big) {\n"
           "    if (big) launch<8, 4>(c); else launch<2, 2>(c);\n"
           "}\n")
    m = _build(src, index=False)
    fn = m.function_of("tile")
    assert m.eval_int("TM", fn) is None  # the instantiations disagree
    assert m.instance_values("TM * TN", fn) == [32, 4]
    loop = next(lp for lp in m.loops if lp.var == "i")
    assert m.trip_counts(loop) == [8, 2]


PROGRAM = """
#include <chrono>
__global__ void k(const float* in, float* out, int n) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void step(float* a, int n) { a[threadIdx.x] += 1.0f; }
void run(float* a, int n) { step<<<1, 32>>>(a, n); }
void gold_k(const float* in, float* out, int n) { for (int i = 0; i < n; i++) out[i] = in[i]; }
void init_data(float* a, int n) { for (int i = 0; i < n; i++) a[i] = i; }
bool validate(float* d, const float* ref, int n) {
  float h[32]; cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost); return h[0] == ref[0]; }
int main() {
  float *d_in, *d_out, *d_a; int n = 32, repeat = 10, iters = 5;
  for (int w = 0; w < 3; w++) k<<<1, 32>>>(d_in, d_out, n);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; r++) k<<<1, 32>>>(d_in, d_out, n);
  auto t1 = std::chrono::steady_clock::now();
  for (int bs = 32; bs <= 1024; bs *= 2) { k<<<1, bs>>>(d_in, d_out, n); validate(d_out, 0, n); }
  for (int it = 0; it < iters; it++) run(d_a, n);
  for (int it = 0; it < iters; it++) step<<<1, 32>>>(d_a, n);
  return 0;
}
"""


def test_host_roles_and_timing_loops_of_a_whole_program():
    m = build_model(PROGRAM, index=False)
    assert m.host_roles == {"run": "solution", "gold_k": "verification", "init_data": "setup",
                            "validate": "verification", "main": "driver"}
    assert sorted(lp.line_start for lp in m.timing_loops) == [12, 14, 16]
    assert sorted(lp.line_start for lp in m.host_loops()) == [17, 18]
    assert [c.name for c in m.device_work_in(m.host_loops()[0])] == ["run"]
    assert m.notes[-2:] == [
        "host code taken as the program around the solution, not tagged: gold_k (verification), "
        "init_data (setup), validate (verification)",
        "loops at lines 12, 14, 16 taken as timing or warm-up repetitions, not as iterations of "
        "the algorithm"]
    solution = build_model(PROGRAM.replace("int main()", "void solution_compute()"), index=False)
    assert set(solution.host_roles.values()) == {"solution"} and solution.timing_loops == []


def test_name_words_and_role_by_name():
    from strategylens.model.roles import name_words, role_by_name
    assert name_words("floydWarshallCPUReference") == ["floyd", "warshall", "cpu", "reference"]
    assert name_words("GPU_argv_init") == ["gpu", "argv", "init"]
    assert [role_by_name(n) for n in ("compareResults", "createDataCPU", "get_time", "upload_tile",
                                      "atax_cpu")] == ["verification", "setup", "timing",
                                                       "solution", "verification"]


UNROLL_MACROS = """template <int N> __device__ void f(float* a) {
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < N; ++i) a[i] = 0;
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int i = 0; i < N; ++i) a[i] = 1;
  CUTE_UNROLL  // the next loop
  for (int i = 0; i < N; ++i) a[i] = 2;
  FOO_BAR
}
__global__ void k(float* a) { f<4>(a); }
"""


def test_unroll_macros_become_unroll_pragmas_and_the_loops_parse():
    # a catalog example cannot hold them: the catalog asks every example to parse cleanly
    m = build_model(UNROLL_MACROS, index=False)
    assert [(lp.line_start, lp.unroll) for lp in m.loops] == [(3, "full"), (5, "full"),
                                                              (7, "full")]
    assert [(p.line, p.kind, p.value, p.function) for p in m.pragmas] == [
        (2, "unroll", "full", "f"), (4, "unroll", "full", "f"), (6, "unroll", "full", "f")]
    assert m.warnings[0] == "line 8: unknown macro 'FOO_BAR'; parsed without it"
    from strategylens.tag import tag_source
    r = tag_source(UNROLL_MACROS, "u.cu", index=False)
    (cmp04,) = [lb for lb in r.labels if lb.id == "CMP-04"]
    assert [e.line_start for e in cmp04.evidence] == [2, 4, 6]


def test_kernel_weights_rank_kernels_by_their_order_of_work():
    path = (Path(__file__).parent.parent / "catalog" / "AP-03-uncoalesced-access" / "cases" /
            "strided_helper_kernel_does_not_dominate.cu")
    m = build_model(path.read_text(), index=False)
    assert m.kernel_weights == {"scale_column": 2.0, "update_rest": 3.0}
    assert [m.minor_kernel(k) for k in m.kernels] == [True, False]
    one = build_model("__global__ void k(float* a, int n) { if (threadIdx.x == 0) "
                      "for (int i = 0; i < n; i++) a[i] = 0; }", index=False)
    assert one.kernel_weights == {"k": 1.0}


def test_kernel_handed_to_a_launch_helper_is_launched():
    m = build_model("""
template <typename T> __global__ void k(unsigned n, T* a) {}
void step(float* a, unsigned n) {
    for (int r = 0; r < 3; ++r) linear_kernel(k<float>, 0, nullptr, n, a);
    cudaFuncSetAttribute(k<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
}
""", index=False)
    (la,) = m.launches
    assert (la.kernel, la.kind, la.template_args, la.line) == ("k", "helper", ["float"], 4)
    assert la.in_loop is not None and la.grid == "" and la.block_value is None


def test_group_lanes():
    src = r"""
template <int G>
__global__ void k(const int* p, int* y, int g) {
    int tid = threadIdx.x;
    int row = blockIdx.x * (blockDim.x / G) + tid / G;
    int lane = tid % G;
    int sub = threadIdx.x & (8 - 1);
    int grp = threadIdx.x / 8;
    int c = threadIdx.x % 4;
    int one = threadIdx.x % 1;
    y[row + lane + sub + grp + c + one + g] = p[0];
}
"""
    m = build_model(src, entry="k", index=False)
    assert m.group_lanes(m.function_of("k")) == {"lane": "G", "sub": "8"}


def test_block_size_params():
    src = r"""
#include <cub/cub.cuh>
template <typename T, int BS, int ITEMS>
__global__ void k(const T* in, T* out) {
    typedef cub::BlockReduce<T, BS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    out[blockIdx.x] = Reduce(tmp).Sum(in[threadIdx.x * ITEMS]);
}
template <int TPB>
__global__ void __launch_bounds__(TPB) s(float* x) { x[threadIdx.x] = 0.0f; }
template <int B, int N>
__global__ void t(float* x) { x[threadIdx.x] = N; }
void solution_compute(float* a, float* b, int n) {
    k<float, 256, 4><<<n, 256>>>(a, b);
    s<128><<<n, 128>>>(a);
    t<64, 3><<<n, 64>>>(a);
}
"""
    m = build_model(src, index=False)
    assert {f.name: m.block_size_params(f) for f in m.gpu_functions()} == \
        {"k": {"BS"}, "s": {"TPB"}, "t": {"B"}}


def test_warp_sized():
    src = r"""
#define WS 32
#define HALF 16
__global__ void k(float* x) { x[threadIdx.x] = 0.0f; }
"""
    m = build_model(src, entry="k", index=False)
    fn = m.function_of("k")
    assert [m.warp_sized(e, fn) for e in ("warpSize", "WS", "(WS)", "WARP_SIZE", "kWarpSize",
                                          "HALF", "ncols", "WARPS_PER_BLOCK")] == \
        [True, True, True, True, True, False, False, False]
