// 0/1 knapsack as one cooperative kernel that applies two items per grid-wide barrier.
//
// The DP row is small enough to stay in L2, so each item costs little memory time and the run
// is bound by the per-item synchronisation. Two things cut that:
//  * Items that cannot change the row are dropped on the host before anything is launched:
//    an item heavier than the capacity, and an item of value 0 (the row is non-decreasing in
//    c, so best[c - w] + 0 <= best[c]).
//  * Two consecutive items (w1, v1), (w2, v2) are applied in one pass without materialising
//    the row in between: new[c] = max(P[c], P[c-w1] + v1, P[c-w2] + v2, P[c-w1-w2] + v1 + v2)
//    (each term only where its weight fits). That is the same max-plus composition the two
//    single-item passes compute, so the table is identical, with half the barriers.
// The kernel is launched cooperatively with as many blocks as fit on the device; each thread
// takes groups of four consecutive capacities (int4 loads and stores of the aligned row,
// scalar loads for the shifted reads). Rows are read through L2 (__ldcg): they are written by
// other SMs inside the same kernel, so the read-only path must not be used.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 512;

__device__ __forceinline__ int best_of(const int* src, int c, int keep, int4 g, int w12, int v12)
{
    int b = keep;
    if (c >= g.x) b = max(b, __ldcg(src + (c - g.x)) + g.y);
    if (c >= g.z) b = max(b, __ldcg(src + (c - g.z)) + g.w);
    if (c >= w12) b = max(b, __ldcg(src + (c - w12)) + v12);
    return b;
}

// groups[g] = (w1, v1, w2, v2); an absent second item has w2 = n_vec * 4 (never fits).
__global__ void __launch_bounds__(THREADS)
knapsack_pairs(int n_vec, int n_groups, const int4* __restrict__ groups, int* row0, int* row1)
{
    cg::grid_group grid = cg::this_grid();
    const int tid = blockIdx.x * THREADS + threadIdx.x;
    const int stride = gridDim.x * THREADS;
    int* src = row0;
    int* dst = row1;
    for (int g = 0; g < n_groups; g++) {
        const int4 it = groups[g];
        const int w12 = it.x + it.z, v12 = it.y + it.w;
        for (int q = tid; q < n_vec; q += stride) {
            const int c = q * 4;
            const int4 keep = __ldcg(reinterpret_cast<const int4*>(src) + q);
            int4 out;
            out.x = best_of(src, c, keep.x, it, w12, v12);
            out.y = best_of(src, c + 1, keep.y, it, w12, v12);
            out.z = best_of(src, c + 2, keep.z, it, w12, v12);
            out.w = best_of(src, c + 3, keep.w, it, w12, v12);
            __stcg(reinterpret_cast<int4*>(dst) + q, out);
        }
        grid.sync();
        int* t = src;
        src = dst;
        dst = t;
    }
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int4* d_groups = nullptr;
    int* d_rows = nullptr;
    std::vector<int4> groups;
    std::vector<int> keep_w, keep_v;
    int n_vec = 0, n_groups = 0, dev = 0, sms = 0, per_sm = 0, coop = 0, grid = 0;
    size_t row_bytes = 0;
    if (capacity < 0) return;
    if (capacity > (1 << 29)) return;  // w1 + w2 must stay in int
    n_vec = (capacity + 4) / 4;
    row_bytes = (size_t)n_vec * 4 * sizeof(int);

    for (int i = 0; i < n_items; i++) {
        if (weights[i] <= capacity && values[i] > 0) {
            keep_w.push_back(weights[i]);
            keep_v.push_back(values[i]);
        }
    }
    for (size_t i = 0; i < keep_w.size(); i += 2) {
        int4 g;
        g.x = keep_w[i];
        g.y = keep_v[i];
        g.z = i + 1 < keep_w.size() ? keep_w[i + 1] : n_vec * 4;
        g.w = i + 1 < keep_w.size() ? keep_v[i + 1] : 0;
        groups.push_back(g);
    }
    n_groups = (int)groups.size();

    CK(cudaMalloc(&d_rows, 2 * row_bytes));
    CK(cudaMemsetAsync(d_rows, 0, row_bytes, 0));
    if (n_groups > 0) {
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, knapsack_pairs, THREADS, 0));
        if (!coop || per_sm < 1) {
            fprintf(stderr, "knapsack: cooperative launch not available\n");
            goto done;
        }
        grid = sms * per_sm;
        if (grid > (n_vec + THREADS - 1) / THREADS) grid = (n_vec + THREADS - 1) / THREADS;
        CK(cudaMalloc(&d_groups, groups.size() * sizeof(int4)));
        CK(cudaMemcpyAsync(d_groups, groups.data(), groups.size() * sizeof(int4),
                           cudaMemcpyHostToDevice, 0));
        int* row0 = d_rows;
        int* row1 = d_rows + (size_t)n_vec * 4;
        void* args[] = {&n_vec, &n_groups, &d_groups, &row0, &row1};
        CK(cudaLaunchCooperativeKernel((void*)knapsack_pairs, grid, THREADS, args, 0, 0));
    }
    // After an even number of passes the row is back in the first buffer.
    CK(cudaMemcpy(best, d_rows + (n_groups % 2 ? (size_t)n_vec * 4 : 0),
                  (size_t)(capacity + 1) * sizeof(int), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_groups);
    cudaFree(d_rows);
}
