"""Tricky decisions of the anti-pattern detectors AP-01 .. AP-05, each on a small inline source.

Every test asserts the exact set of (ID, line) pairs reported.
"""

from __future__ import annotations

import textwrap

from tests._detector_classes import family

from strategylens.model import build_model

antipatterns = family("AP")

DETECTORS = [cls() for cls in antipatterns.DETECTORS]


def report(src: str, ids: set[str], index: bool = False) -> set[tuple[str, int]]:
    """(ID, line) for every finding of the selected anti-pattern detectors on ``src``."""
    model = build_model(textwrap.dedent(src), "<test>", index=index)
    return {(d.id, f.line_start) for d in DETECTORS if d.id in ids for f in d.detect(model)}


def test_serial_kernel_needs_problem_sized_work():
    src = """\
#include <cuda_runtime.h>
__global__ void reset(int* c) { *c = 0; }
__global__ void serial_sum(const float* x, int n, float* out) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += x[i];
    *out = s;
}
__global__ void finish(const float* part, int parts, float* out) {
    float s = 0.0f;
    for (int p = 0; p < parts; ++p) s += part[p];
    *out = s;
}
extern "C" void solution_compute(int n, const float* d_x, float* d_out, int* d_c, float* d_p) {
    int blocks = (n + 255) / 256;
    reset<<<1, 1>>>(d_c);
    serial_sum<<<1, 1>>>(d_x, n, d_out);
    finish<<<1, 1>>>(d_p, blocks, d_out);
}
"""
    # reset writes a scalar; finish walks `blocks` partials, not the problem
    assert report(src, {"AP-01"}) == {("AP-01", 16)}


def test_single_thread_guard_over_the_problem_is_serial():
    src = """\
#include <cuda_runtime.h>
__global__ void scan(const int* in, int* out, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }
    }
    if (threadIdx.x == 0 || n < 0) out[0] = in[0];
}
__global__ void block_result(const int* in, int* out) {
    if (threadIdx.x == 0) out[blockIdx.x] = in[blockIdx.x];
}
extern "C" void solution_compute(int n, const int* d_in, int* d_out) {
    scan<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    block_result<<<(n + 255) / 256, 256>>>(d_in, d_out);
}
"""
    assert report(src, {"AP-01"}) == {("AP-01", 5)}


def test_serial_tail_after_deeper_parallel_work_is_not_the_heavy_work():
    src = """\
#include <cuda_runtime.h>
__global__ void pairs(const float* x, int n, float* row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += fabsf(x[i] - x[j]);
    row[i] = s;
}
__global__ void best(const float* row, int n, float* out) {
    float b = row[0];
    for (int i = 1; i < n; ++i) b = fminf(b, row[i]);
    *out = b;
}
extern "C" void solution_compute(int n, const float* d_x, float* d_row, float* d_out) {
    pairs<<<(n + 255) / 256, 256>>>(d_x, n, d_row);
    best<<<1, 1>>>(d_row, n, d_out);
}
"""
    assert report(src, {"AP-01"}) == set()


def test_round_trip_only_when_the_copy_decides_the_loop():
    src = """\
#include <cuda_runtime.h>
__global__ void k(float* a, int n, int* f) { if (threadIdx.x == 0) *f = a[0] > 0.0f; }
extern "C" void solution_compute(int n, int reqs, float* d_a, int* d_f, float* out) {
    for (int r = 0; r < reqs; ++r) {
        k<<<1, 32>>>(d_a, n, d_f);
        cudaMemcpy(out + r, d_a, sizeof(float), cudaMemcpyDeviceToHost);
    }
    int go = 1, it = 0;
    while (go && it < 100) {
        k<<<1, 32>>>(d_a, n, d_f);
        cudaMemcpy(&go, d_f, sizeof(int), cudaMemcpyDeviceToHost);
        ++it;
    }
}
"""
    assert report(src, {"AP-02"}) == {("AP-02", 11)}


def test_state_copied_to_host_and_back_every_iteration_is_a_round_trip():
    src = """\
#include <cuda_runtime.h>
__global__ void step(float* u, int n) { int i = threadIdx.x; if (i < n) u[i] *= 0.5f; }
extern "C" void solution_compute(int n, int steps, float* h_u, float* d_u) {
    for (int t = 0; t < steps; ++t) {
        cudaMemcpy(d_u, h_u, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<1, 256>>>(d_u, n);
        cudaMemcpy(h_u, d_u, n * sizeof(float), cudaMemcpyDeviceToHost);
    }
}
"""
    assert report(src, {"AP-02"}) == {("AP-02", 7)}


UNCOALESCED = """\
#include <cuda_runtime.h>
__global__ void row_sums(const float* A, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += A[r * cols + c];
    y[r] = s;
}
__global__ void col_sums(const float* A, float* y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += A[r * cols + c];
    y[c] = s;
}
__global__ void xyz_norm(const float* p, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p[3 * i] + p[3 * i + 1] + p[3 * i + 2];
}
extern "C" void solution_compute(int rows, int cols, const float* A, float* y, float* z) {
    row_sums<<<(rows + 255) / 256, 256>>>(A, y, rows, cols);
    col_sums<<<(cols + 255) / 256, 256>>>(A, z, rows, cols);
    xyz_norm<<<(rows + 255) / 256, 256>>>(A, z, rows);
}
"""


def test_uncoalesced_flags_thread_per_row_not_column_walks_or_small_aos():
    assert report(UNCOALESCED, {"AP-03"}, index=True) == {("AP-03", 6)}


def test_uncoalesced_without_libclang_uses_tree_sitter_strides():
    assert report(UNCOALESCED, {"AP-03"}, index=False) == {("AP-03", 6)}


def test_csr_walks_flagged_only_when_not_data_driven():
    src = """\
#include <cuda_runtime.h>
__global__ void spmv(const int* rp, const int* ci, const float* v, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float s = 0.0f;
    for (int k = rp[row]; k < rp[row + 1]; ++k) s += v[k] * x[ci[k]];
    y[row] = s;
}
__global__ void bfs_level(const int* rp, const int* ci, int* depth, int n, int level) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || depth[u] != level) return;
    for (int k = rp[u]; k < rp[u + 1]; ++k) if (depth[ci[k]] < 0) depth[ci[k]] = level + 1;
}
__global__ void bfs_queue(const int* rp, const int* ci, const int* q, int qn, int* depth, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= qn) return;
    int u = q[t];
    for (int k = rp[u]; k < rp[u + 1]; ++k) if (depth[ci[k]] < 0) depth[ci[k]] = level + 1;
}
extern "C" void solution_compute(int n, int* rp, int* ci, float* v, float* x, float* y, int* d, int* q) {
    spmv<<<(n + 255) / 256, 256>>>(rp, ci, v, x, y, n);
    bfs_level<<<(n + 255) / 256, 256>>>(rp, ci, d, n, 0);
    bfs_queue<<<(n + 255) / 256, 256>>>(rp, ci, q, n, d, 0);
}
"""
    assert report(src, {"AP-03"}, index=True) == {("AP-03", 6)}


def test_cross_call_state_ignores_static_helpers_constants_and_per_call_buffers():
    src = """\
#include <cuda_runtime.h>
static const float kW[3] = {0.25f, 0.5f, 0.25f};
static constexpr int kBlock = 256;
static float* d_tmp = nullptr;
static float* d_keep = nullptr;
static int g_calls = 0;
static inline int blocks(int n) { return (n + kBlock - 1) / kBlock; }
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 2.0f; }
extern "C" void solution_compute(int n, float* out) {
    static bool initialised = false;
    if (!initialised) {
        cudaMalloc(&d_keep, n * sizeof(float));
        initialised = true;
    }
    cudaMalloc(&d_tmp, n * sizeof(float));
    k<<<blocks(n), kBlock>>>(d_tmp, n);
    k<<<blocks(n), kBlock>>>(d_keep, n);
    cudaMemcpy(out, d_tmp, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_tmp);
    g_calls++;
}
"""
    # d_keep holds an allocation that is never freed; `initialised` is kept and tested;
    # g_calls is written but never read back; d_tmp is freed in every call
    assert report(src, {"AP-04"}) == {("AP-04", 5), ("AP-04", 10)}


def test_host_compute_when_host_nest_is_deeper_than_device_work():
    src = """\
#include <cuda_runtime.h>
__global__ void scale(float* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2.0f; }
extern "C" void solution_compute(int n, const float* x, float* d_a, float* out) {
    for (int i = 0; i < n; ++i) {
        float s = 0.0f;
        for (int j = 0; j < n; ++j) s += x[i] * x[j];
        out[i] = s;
    }
    scale<<<(n + 255) / 256, 256>>>(d_a, n);
}
"""
    assert report(src, {"AP-05"}) == {("AP-05", 4)}


def test_host_compute_skips_fallbacks_packing_and_partials():
    src = """\
#include <cuda_runtime.h>
__global__ void scale(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 2.0f * a[i];
}
extern "C" void solution_compute(int n, const float* xy, float* out, float* d_a, float* d_b) {
    if (n < 1024) {
        for (int i = 0; i < n; ++i) out[i] = 2.0f * xy[2 * i];
        return;
    }
    float* h = new float[n];
    for (int i = 0; i < n; ++i) h[i] = xy[2 * i];
    int blocks = (n + 255) / 256;
    float part[4096];
    float total = 0.0f;
    for (int b = 0; b < blocks; ++b) total += part[b];
    scale<<<blocks, 256>>>(d_a, d_b, n);
    out[0] = total;
    delete[] h;
}
"""
    assert report(src, {"AP-05"}) == set()


def test_host_compute_when_nothing_runs_on_the_device():
    src = """\
#include <cuda_runtime.h>
__global__ void unused(float* a) { a[threadIdx.x] = 0.0f; }
extern "C" void solution_compute(int n, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = x[i] * x[i] + 1.0f;
}
"""
    assert report(src, {"AP-05"}) == {("AP-05", 4)}


def test_cross_call_state_through_struct_members():
    src = """\
#include <cuda_runtime.h>
struct Cache { float* buf; int n; };
static Cache g_cache;
extern "C" void solution_compute(int n, float* out) {
    if (g_cache.n != n) {
        cudaMalloc(&g_cache.buf, n * sizeof(float));
        g_cache.n = n;
    }
    cudaMemcpy(out, g_cache.buf, n * sizeof(float), cudaMemcpyDeviceToHost);
}
"""
    assert report(src, {"AP-04"}) == {("AP-04", 3)}


def test_host_compute_in_count_down_loop():
    # A 0/1-knapsack DP on the host: the inner loop's range comes from its start, not its test.
    src = """\
#include <cuda_runtime.h>
#include <vector>
__global__ void fill_zero(int* dp, int len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) dp[i] = 0;
}
extern "C" void solution_compute(int n_items, const int* w, const int* v, int capacity, int* best) {
    int* d_dp;
    cudaMalloc(&d_dp, (capacity + 1) * sizeof(int));
    fill_zero<<<(capacity + 256) / 256, 256>>>(d_dp, capacity + 1);
    std::vector<int> dp(capacity + 1);
    cudaMemcpy(dp.data(), d_dp, (capacity + 1) * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n_items; ++i)
        for (int c = capacity; c >= w[i]; --c)
            dp[c] = dp[c] > dp[c - w[i]] + v[i] ? dp[c] : dp[c - w[i]] + v[i];
    *best = dp[capacity];
    cudaFree(d_dp);
}
"""
    assert report(src, {"AP-05"}) == {("AP-05", 13)}


def test_warp_cooperative_csr_walk_is_not_uncoalesced():
    src = """\
#include <cuda_runtime.h>
#define WARP 32
__global__ void spmv(int n, const int* rp, const int* ci, const float* v, const float* x, float* y) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x & (WARP - 1);
    if (w >= n) return;
    float acc = 0.0f;
    for (int e = rp[w] + lane; e < rp[w + 1]; e += WARP) acc += v[e] * x[ci[e]];
    if (lane == 0) y[w] = acc;
}
__global__ void spmv_scalar(int n, const int* rp, const int* ci, const float* v, const float* x, float* y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.0f;
    for (int e = rp[row]; e < rp[row + 1]; ++e) acc += v[e] * x[ci[e]];
    y[row] = acc;
}
extern "C" void solution_compute(int n, const int* rp, const int* ci, const float* v, const float* x, float* y) {
    spmv<<<(n * 32 + 255) / 256, 256>>>(n, rp, ci, v, x, y);
    spmv_scalar<<<(n + 255) / 256, 256>>>(n, rp, ci, v, x, y);
}
"""
    assert report(src, {"AP-03"}) == {("AP-03", 15)}
