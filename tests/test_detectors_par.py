"""Tricky decisions of the PAR detectors, each on a small inline source."""

from __future__ import annotations


from tests._detector_classes import family

from strategylens.model import build_model

par = family("PAR")

HOST = """
extern "C" void solution_compute(float* x, int n) {{
{body}
}}
"""


def report(source: str, *detectors) -> set[tuple[str, int]]:
    """The exact (ID, line) pairs the given detectors report on ``source``."""
    model = build_model(source)
    return {(d.id, f.line_start) for cls in detectors for d in [cls()] for f in d.detect(model)}


def findings(source: str, detector) -> list:
    return list(detector().detect(build_model(source)))


def numbered(src: str) -> str:
    """Strip the leading newline so that line numbers in the tests read naturally."""
    return src.lstrip("\n")


def test_grid_stride_while_loop_with_stride_variable_and_not_block_stride():
    src = numbered("""
__global__ void a(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    while (i < n) {
        x[i] *= 2.0f;
        i += stride;
    }
}
__global__ void b(float* x, int n) {
    for (int c = threadIdx.x; c < n; c += blockDim.x) x[blockIdx.x * n + c] = 0.0f;
}
extern "C" void solution_compute(float* x, int n) {
    a<<<64, 256>>>(x, n);
    b<<<64, 256>>>(x, n);
}
""")
    assert report(src, par.GridStrideLoop) == {("PAR-01", 4)}


def test_grid_stride_loop_in_unlaunched_kernel_is_ignored():
    src = numbered("""
__global__ void unused(float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = 0;
}
extern "C" void solution_compute(float* x, int n) {}
""")
    assert report(src, par.GridStrideLoop) == set()


def test_coarsening_loop_intensity_and_component_stores_are_not_coarsening():
    src = numbered("""
__global__ void four(const float* in, float* out, int n) {
    int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int i = base + k * blockDim.x;
        if (i < n) out[i] = 2.0f * in[i];
    }
}
__global__ void xyz(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[3 * i] = in[i];
    out[3 * i + 1] = in[i];
    out[3 * i + 2] = in[i];
}
extern "C" void solution_compute(const float* in, float* out, int n) {
    four<<<n / 1024, 256>>>(in, out, n);
    xyz<<<n / 256, 256>>>(in, out, n);
}
""")
    found = findings(src, par.ThreadCoarsening)
    assert [(f.line_start, f.intensity) for f in found] == [(4, 4.0)]


def test_coarsening_ignores_exclusive_branches_and_exchanges():
    src = numbered("""
__global__ void edge(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) out[0] = in[0];
    else out[i] = in[i] - in[i - 1];
}
__global__ void swap_pairs(float* v, int j) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i ^ j;
    if (p > i && v[i] > v[p]) { float t = v[i]; v[i] = v[p]; v[p] = t; }
}
extern "C" void solution_compute(float* v, int n) {
    edge<<<n / 256, 256>>>(v, v, n);
    swap_pairs<<<n / 256, 256>>>(v, 1);
}
""")
    assert report(src, par.ThreadCoarsening) == set()


def test_shuffle_counts_only_in_called_helpers():
    src = numbered("""
__device__ float used(float v) { return v + __shfl_xor_sync(0xffffffff, v, 1); }
__device__ float unused(float v) { return v + __shfl_down_sync(0xffffffff, v, 1); }
__global__ void k(float* x) {
    unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
    x[threadIdx.x] = used(x[threadIdx.x]) + m;
}
extern "C" void solution_compute(float* x, int n) { k<<<1, 32>>>(x); }
""")
    assert report(src, par.WarpShuffleCollectives) == {("PAR-03", 1)}


def test_tree_reduction_versus_scan_and_bitonic_exchange():
    src = numbered("""
__global__ void reduce(const float* x, float* out) {
    __shared__ float s[256];
    s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
__global__ void scan(int* x) {
    __shared__ int s[256];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    for (int d = 1; d < 256; d <<= 1) {
        int v = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    x[threadIdx.x] = s[threadIdx.x];
}
__global__ void bitonic(float* x) {
    __shared__ float s[256];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    for (int j = 128; j > 0; j >>= 1) {
        int p = threadIdx.x ^ j;
        if (p > threadIdx.x && s[threadIdx.x] > s[p]) { float t = s[p]; s[p] = s[threadIdx.x]; s[threadIdx.x] = t; }
        __syncthreads();
    }
    x[threadIdx.x] = s[threadIdx.x];
}
extern "C" void solution_compute(float* x, float* out, int* y) {
    reduce<<<4, 256>>>(x, out);
    scan<<<1, 256>>>(y);
    bitonic<<<1, 256>>>(x);
}
""")
    assert report(src, par.BlockTreeReduction) == {("PAR-04", 5)}
    assert report(src, par.ScanAndCompaction) == {("PAR-07", 15)}


def test_privatized_partial_merged_with_matching_atomic_only():
    src = numbered("""
__global__ void total(const float* x, float* sum, int n) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i];
    atomicAdd(sum, acc);
}
__global__ void nearest(const float* d, int m, int* best) {
    int dist = 0;
    for (int k = 0; k < m; ++k) dist += (int)d[threadIdx.x * m + k];
    atomicMin(best, dist);
}
extern "C" void solution_compute(const float* x, float* s, int* b, int n) {
    total<<<64, 256>>>(x, s, n);
    nearest<<<1, 64>>>(x, n, b);
}
""")
    assert report(src, par.PrivatizedAccumulation) == {("PAR-05", 5)}


def test_atomic_roles_work_counter_slot_and_combine():
    src = numbered("""
__global__ void k(const int* items, int n, int* next, int* out, int* count, int* total) {
    while (true) {
        int item = atomicAdd(next, 1);
        if (item >= n) return;
        int v = items[item];
        if (v > 0) {
            int slot = atomicAdd(count, 1);
            out[slot] = v;
        }
        atomicAdd(total, v);
    }
}
extern "C" void solution_compute(const int* items, int n, int* next, int* out, int* count, int* total) {
    k<<<132, 256>>>(items, n, next, out, count, total);
}
""")
    lbl = family("LBL")
    assert report(src, par.AtomicUpdate) == {("PAR-06", 7), ("PAR-06", 10)}
    assert report(src, lbl.DynamicWorkQueue) == {("LBL-01", 3)}
    assert {f.intensity for f in findings(src, par.AtomicUpdate)} == {2.0}


def test_atomic_in_constant_false_branch_is_ignored():
    src = numbered("""
constexpr bool kAtomic = false;
__global__ void k(int* x, int* m) {
    if (kAtomic) { atomicMax(m, x[threadIdx.x]); }
    x[threadIdx.x] = 0;
}
extern "C" void solution_compute(int* x, int* m) { k<<<1, 32>>>(x, m); }
""")
    assert report(src, par.AtomicUpdate) == set()


def test_library_scan_counts_and_reduce_does_not():
    src = numbered("""
#include <thrust/scan.h>
#include <thrust/reduce.h>
#include <thrust/execution_policy.h>
extern "C" void solution_compute(int* d, int* o, int n) {
    int s = thrust::reduce(thrust::device, d, d + n);
    thrust::exclusive_scan(thrust::device, d, d + n, o);
}
""")
    assert report(src, par.ScanAndCompaction) == {("PAR-07", 6)}


def test_wavefront_from_host_diagonals_but_not_time_steps():
    src = numbered("""
__global__ void diag(int* dp, int w, int d) {
    int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    int j = d - i;
    if (j >= 1) dp[i * w + j] = min(dp[(i - 1) * w + j], dp[i * w + j - 1]) + 1;
}
__global__ void step(float* u, float dt, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    u[i] += dt * t - i;
}
extern "C" void solution_compute(int* dp, float* u, int n) {
    for (int d = 2; d <= 2 * n; ++d) diag<<<n / 128 + 1, 128>>>(dp, n + 1, d);
    for (int t = 0; t < 10; ++t) step<<<n / 256, 256>>>(u, 0.1f, t);
}
""")
    assert report(src, par.WavefrontParallelism) == {("PAR-08", 11)}


def test_grid_sync_forms_and_block_sync():
    src = numbered("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x, int n) {
    cg::grid_group g = cg::this_grid();
    cg::thread_block b = cg::this_thread_block();
    x[g.thread_rank()] = 1.0f;
    b.sync();
    cg::sync(g);
    cg::this_grid().sync();
}
extern "C" void solution_compute(float* x, int n) {
    void* args[] = {&x, &n};
    cudaLaunchCooperativeKernel((void*)k, dim3(132), dim3(256), args, 0, 0);
}
""")
    assert report(src, par.PersistentGridSync) == {("PAR-09", 8), ("PAR-09", 9)}


def test_multidimensional_launches_and_block_per_item():
    src = numbered("""
__global__ void img(float* p, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) p[y * w + x] = 0;
}
__global__ void rows(float* a, int cols) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) a[row * cols + c] *= 2.0f;
}
__global__ void csr_rows(const int* rp, float* v) {
    int row = blockIdx.x;
    for (int e = rp[row] + threadIdx.x; e < rp[row + 1]; e += blockDim.x) v[e] *= 2.0f;
}
__global__ void flat(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 0;
}
extern "C" void solution_compute(float* p, const int* rp, int w, int h) {
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    img<<<grid, block>>>(p, w, h);
    rows<<<h, 256>>>(p, w);
    csr_rows<<<h, 256>>>(rp, p);
    dim3 g1((w * h + 255) / 256, 1, 1);
    flat<<<g1, 256>>>(p, w * h);
}
""")
    spans = {(f.line_start, f.line_end) for f in findings(src, par.MultidimensionalMapping)}
    assert spans == {(18, 20), (21, 21)}  # dim3 declarations through the launch; the launch


def test_occupancy_from_device_properties_only_when_it_sizes_a_launch():
    src = numbered("""
#include <cstdio>
__global__ void __launch_bounds__(256) k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0;
}
__global__ void __launch_bounds__(128) unused(float* x) { x[0] = 1; }
extern "C" void solution_compute(float* x, int n) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (prop.major < 7) printf("old device\\n");
    int sms = prop.multiProcessorCount;
    k<<<sms * 4, 256>>>(x, n);
}
""")
    assert report(src, par.OccupancyTuning) == {("PAR-11", 2), ("PAR-11", 11)}


def test_blelloch_up_and_down_sweep_is_a_scan():
    src = numbered("""
__global__ void prescan(float* out, const float* in, int n) {
    __shared__ float t[512];
    int i = threadIdx.x, offset = 1;
    t[2 * i] = in[2 * i];
    t[2 * i + 1] = in[2 * i + 1];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (i < d) t[offset * (2 * i + 2) - 1] += t[offset * (2 * i + 1) - 1];
        offset *= 2;
    }
    if (i == 0) t[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (i < d) {
            int ai = offset * (2 * i + 1) - 1, bi = offset * (2 * i + 2) - 1;
            float v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    __syncthreads();
    out[2 * i] = t[2 * i];
}
extern "C" void solution_compute(float* o, const float* x, int n) { prescan<<<1, 256>>>(o, x, 512); }
""")
    assert report(src, par.ScanAndCompaction) == {("PAR-07", 6)}
    assert report(src, par.BlockTreeReduction) == set()


def test_coarsening_by_a_runtime_chunk_per_thread_but_not_a_thread_per_row_walk():
    src = numbered("""
__global__ void chunks(const float* in, float* out, int n, int chunk) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * chunk;
    int end = min(start + chunk, n);
    for (int i = start; i < end; ++i) out[i] = in[i] * in[i];
}
__global__ void rows(const float* a, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    for (int c = 0; c < cols; ++c) out[r * cols + c] = a[r * cols + c] * 2.0f;
}
extern "C" void solution_compute(const float* in, float* out, int n) {
    chunks<<<n / 1024, 256>>>(in, out, n, 4);
    rows<<<n / 256, 256>>>(in, out, n, 8);
}
""")
    assert report(src, par.ThreadCoarsening) == {("PAR-02", 5)}


def test_block_per_item_handed_out_at_run_time():
    src = numbered("""
__global__ void rows(int* next, int h, int w, float* out) {
    __shared__ int row;
    while (true) {
        if (threadIdx.x == 0) row = atomicAdd(next, 1);
        __syncthreads();
        int y = row;
        __syncthreads();
        if (y >= h) return;
        for (int x = threadIdx.x; x < w; x += blockDim.x) out[y * w + x] = 1.0f;
    }
}
extern "C" void solution_compute(int* next, int h, int w, float* out) {
    rows<<<132, 128>>>(next, h, w, out);
}
""")
    assert report(src, par.MultidimensionalMapping) == {("PAR-10", 13)}


def test_par02_lanes_stored_as_one_vector():
    src = numbered("""
#include <cuda_runtime.h>
__global__ void k(const float4* in, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = in[i];
    float src[4] = {v.x, v.y, v.z, v.w};
    float res[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) res[j] = src[j] * src[j] + 1.0f;
    out[i] = make_float4(res[0], res[1], res[2], res[3]);
}
__global__ void copy4(const float4* in, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = make_float4(in[i].x, in[i].y, in[i].z, in[i].w);
}
extern "C" void solution_compute(const float4* in, float4* out, int n4) {
    k<<<(n4 + 255) / 256, 256>>>(in, out, n4);
    copy4<<<(n4 + 255) / 256, 256>>>(in, out, n4);
}
""")
    assert report(src, par.ThreadCoarsening) == {("PAR-02", 9)}
    assert [f.intensity for f in findings(src, par.ThreadCoarsening)] == [4.0]
