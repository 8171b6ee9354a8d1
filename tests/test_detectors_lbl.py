"""Tricky decisions of the LBL detectors, each on a small inline source."""

from __future__ import annotations

from tests._detector_classes import family

from strategylens.model import build_model

lbl = family("LBL")


def report(source: str, *detectors) -> set[tuple[str, int]]:
    """The exact (ID, line) pairs the given detectors report on ``source``."""
    model = build_model(source.lstrip("\n"))
    return {(d.id, f.line_start) for cls in detectors for d in [cls()] for f in d.detect(model)}


def findings(source: str, detector) -> list:
    return list(detector().detect(build_model(source.lstrip("\n"))))


def test_work_counter_through_shared_broadcast_but_not_output_slot():
    src = """
__global__ void rows(int* next, int h, int w, int* out) {
    __shared__ int row;
    for (;;) {
        if (threadIdx.x == 0) row = atomicAdd(next, 1);
        __syncthreads();
        int y = row;
        __syncthreads();
        if (y >= h) break;
        for (int x = threadIdx.x; x < w; x += blockDim.x) out[y * w + x] = x ^ y;
    }
}
__global__ void keep(const float* v, int n, float* kept, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] > 0) { int s = atomicAdd(count, 1); if (s < n) kept[s] = v[i]; }
}
extern "C" void solution_compute(int* next, int h, int w, int* out, const float* v, float* kept) {
    rows<<<132, 128>>>(next, h, w, out);
    keep<<<w / 256, 256>>>(v, w, kept, next);
}
"""
    assert report(src, lbl.DynamicWorkQueue) == {("LBL-01", 4)}


def test_warp_per_csr_row_versus_thread_per_row_and_dense_rows():
    src = """
__global__ void vec(const int* rp, const float* v, float* y, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    float s = 0;
    for (int j = rp[row] + lane; j < rp[row + 1]; j += 32) s += v[j];
    if (lane == 0) y[row] = s;
}
__global__ void scalar(const int* rp, const float* v, float* y, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0;
    for (int j = rp[row]; j < rp[row + 1]; ++j) s += v[j];
    y[row] = s;
}
__global__ void dense(const float* a, float* y, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    float s = 0;
    for (int c = lane; c < cols; c += 32) s += a[row * cols + c];
    if (lane == 0) y[row] = s;
}
extern "C" void solution_compute(const int* rp, const float* v, float* y, int rows) {
    vec<<<rows / 8, 256>>>(rp, v, y, rows);
    scalar<<<rows / 256, 256>>>(rp, v, y, rows);
    dense<<<rows / 8, 256>>>(v, y, rows);
}
"""
    got = {(f.line_start, f.confidence, f.intensity) for f in findings(src, lbl.CooperativeItemMapping)}
    assert got == {(5, 0.9, 32.0), (18, 0.6, 32.0)}


def test_frontier_append_with_direct_index_in_host_loop_but_not_one_pass_filter():
    src = """
__global__ void expand(const int* rp, const int* col, const int* front, int fs, int* dist,
                       int lvl, int* next, int* ns) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fs) return;
    int v = front[t];
    for (int e = rp[v]; e < rp[v + 1]; ++e)
        if (atomicCAS(&dist[col[e]], -1, lvl + 1) == -1) next[atomicAdd(ns, 1)] = col[e];
}
extern "C" void solution_compute(const int* rp, const int* col, int* f, int* g, int* d, int* ns) {
    int size = 1;
    for (int lvl = 0; size > 0; ++lvl) {
        expand<<<(size + 255) / 256, 256>>>(rp, col, f, size, d, lvl, g, ns);
        cudaMemcpy(&size, ns, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = f; f = g; g = t;
    }
}
"""
    assert report(src, lbl.FrontierWorklist) == {("LBL-03", 7)}
    one_pass = """
__global__ void pick(const float* x, int n, int* idx, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0) idx[atomicAdd(count, 1)] = i;
}
extern "C" void solution_compute(const float* x, int n, int* idx, int* count) {
    pick<<<n / 256, 256>>>(x, n, idx, count);
}
"""
    assert report(one_pass, lbl.FrontierWorklist) == set()


def test_binning_needs_a_computed_bin_and_a_placed_item():
    src = """
__global__ void bins(const int* rp, int n, int* count, int* lists) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int deg = rp[v + 1] - rp[v];
    int b = deg < 32 ? 0 : 1;
    int slot = atomicAdd(&count[b], 1);
    lists[b * n + slot] = v;
}
__global__ void hist(const int* keys, int n, int* h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = keys[i] % 16;
    if (i < n) atomicAdd(&h[b], 1);
}
__global__ void scatter(const int* src, const int* dst, int m, int* cursor, int* col) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) { int s = atomicAdd(&cursor[src[e]], 1); col[s] = dst[e]; }
}
extern "C" void solution_compute(const int* rp, int n, int* count, int* lists) {
    bins<<<n / 256, 256>>>(rp, n, count, lists);
    hist<<<n / 256, 256>>>(rp, n, count);
    scatter<<<n / 256, 256>>>(rp, rp, n, count, lists);
}
"""
    assert report(src, lbl.CostBinning) == {("LBL-04", 6)}


def test_balanced_search_on_thread_position_not_on_loaded_key_or_float_bisection():
    src = """
__global__ void balanced(const int* rp, int rows, int nnz, int* first_row) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * 64;
    int lo = 0, hi = rows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (rp[mid + 1] <= start) lo = mid + 1; else hi = mid;
    }
    first_row[t] = lo;
}
__global__ void lookup(const float* table, int m, const float* q, int* pos) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float key = q[i];
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (table[mid] < key) lo = mid + 1; else hi = mid;
    }
    pos[i] = lo;
}
__global__ void bisect(const float* target, float* root) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float lo = 0.0f, hi = 10.0f;
    for (int it = 0; it < 50; ++it) {
        float mid = 0.5f * (lo + hi);
        if (mid * mid > target[i]) hi = mid; else lo = mid;
    }
    root[i] = lo;
}
extern "C" void solution_compute(const int* rp, int rows, const float* q, int* pos, float* r) {
    balanced<<<4, 256>>>(rp, rows, 100, pos);
    lookup<<<4, 256>>>(q, rows, q, pos);
    bisect<<<4, 256>>>(q, r);
}
"""
    assert report(src, lbl.BalancedPartitioning) == {("LBL-05", 5)}


def test_hybrid_threshold_through_host_helper_and_used_host_combination():
    src = """
__global__ void sq(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
static void cpu_sq(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] * x[i];
}
extern "C" void solution_compute(const float* x, float* y, int n) {
    if (n <= 0) return;
    if (n < 4096) { cpu_sq(x, y, n); return; }
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    sq<<<(n + 255) / 256, 256>>>(dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    float check = 0.0f;
    for (int i = 0; i < n; ++i) check += y[i];
    (void)check;
}
"""
    assert report(src, lbl.HybridCpuGpuSplit) == {("LBL-06", 10)}
    partials = """
__global__ void part(const float* x, float* p, int n) { p[blockIdx.x] = x[blockIdx.x]; }
extern "C" void solution_compute(const float* x, float* out, int n) {
    float *dx, *dp, h[64];
    part<<<64, 256>>>(dx, dp, n);
    cudaMemcpy(h, dp, sizeof(h), cudaMemcpyDeviceToHost);
    float s = 0.0f;
    for (int b = 0; b < 64; ++b) s += h[b];
    *out = s;
}
"""
    assert report(partials, lbl.HybridCpuGpuSplit) == {("LBL-06", 7)}


def test_counting_sort_into_cells_computed_by_another_kernel():
    src = """
__global__ void cells(const float* x, int n, float h, int* cell_of) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cell_of[i] = (int)(x[i] / h);
}
__global__ void place(const int* cell_of, int n, int* fill, int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) order[atomicAdd(&fill[cell_of[i]], 1)] = i;
}
__global__ void place_input(const int* key, int n, int* fill, int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) order[atomicAdd(&fill[key[i]], 1)] = i;
}
extern "C" void solution_compute(const float* x, const int* keys, int n, float h, int* order) {
    int *d_cell, *d_fill, *d_keys;
    cells<<<n / 256, 256>>>(x, n, h, d_cell);
    place<<<n / 256, 256>>>(d_cell, n, d_fill, order);
    place_input<<<n / 256, 256>>>(d_keys, n, d_fill, order);
}
"""
    assert report(src, lbl.CostBinning) == {("LBL-04", 7)}


def test_host_share_of_a_partial_range_but_not_a_full_host_loop():
    src = """
__global__ void f(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 2.0f + 1.0f;
}
extern "C" void solution_compute(const float* x, float* y, int n) {
    int gpu_n = n - n % 256;
    f<<<gpu_n / 256, 256>>>(x, y, gpu_n);
    for (int i = gpu_n; i < n; ++i) y[i] = x[i] * 2.0f + 1.0f;
    for (int i = 0; i < n; ++i) y[i] = x[i];
}
"""
    assert report(src, lbl.HybridCpuGpuSplit) == {("LBL-06", 8)}


def test_merge_path_search_in_a_helper_called_with_the_thread_diagonal():
    src = """
__device__ int split(const int* a, int na, const int* b, int nb, int diag) {
    int lo = max(0, diag - nb), hi = min(diag, na);
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (a[mid] <= b[diag - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    return lo;
}
__global__ void merge(const int* a, int na, const int* b, int nb, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int diag = min(t * 8, na + nb);
    int i = split(a, na, b, nb, diag);
    out[t] = i;
}
__global__ void find(const int* a, int na, const int* q, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = split(a, na, a, na, q[t]);
}
extern "C" void solution_compute(const int* a, int na, const int* b, int nb, int* out) {
    merge<<<4, 128>>>(a, na, b, nb, out);
    find<<<4, 128>>>(a, na, b, out);
}
"""
    assert report(src, lbl.BalancedPartitioning) == {("LBL-05", 3)}


def test_host_scan_of_device_counts_is_a_host_share():
    src = """
__global__ void count(const float* x, int n, int* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = x[i] > 0 ? 2 : 1;
}
extern "C" void solution_compute(const float* x, int n, int* offsets) {
    int* d_c;
    int h[1024];
    count<<<(n + 255) / 256, 256>>>(x, n, d_c);
    cudaMemcpy(h, d_c, n * sizeof(int), cudaMemcpyDeviceToHost);
    offsets[0] = 0;
    for (int i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + h[i];
    for (int i = 0; i < n; ++i) offsets[i] = h[i];
}
"""
    assert report(src, lbl.HybridCpuGpuSplit) == {("LBL-06", 11)}


def test_lbl02_lanes_offset_inside_the_chunk_loop():
    from strategylens.model import build_model

    src = (
        "__global__ void expand(const int* rp, const int* ci, const int* front, int fs, int* out) {\n"
        "    int lane = threadIdx.x & 31;\n"
        "    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;\n"
        "    if (w >= fs) return;\n"
        "    int u = front[w];\n"
        "    int beg = rp[u], end = rp[u + 1];\n"
        "    for (int base = beg; base < end; base += 32) {\n"
        "        int k = base + lane;\n"
        "        if (k < end) out[ci[k]] = 1;\n"
        "    }\n"
        "}\n"
        "extern \"C\" void solution_compute(const int* rp, const int* ci, const int* f, int fs, int* o) {\n"
        "    expand<<<(fs * 32 + 255) / 256, 256>>>(rp, ci, f, fs, o);\n"
        "}\n")
    model = build_model(src, index=False)
    assert [f.line_start for f in lbl.CooperativeItemMapping().detect(model)] == [7]
