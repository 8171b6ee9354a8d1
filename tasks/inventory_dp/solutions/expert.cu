// Inventory replenishment DP in one cooperative kernel.
//
// A period is a few million multiply-adds on rows of a few thousand floats, so launching two
// kernels per period (and the host round trips that come with a naive loop) costs more than
// the arithmetic. Here the whole backward recursion runs inside one cooperative launch sized
// to be fully resident, with a grid barrier after each of the two phases of a period:
//  * expected cost L(y): one warp per level y; the lanes split the demand sum (lane l takes
//    d = l, l + 32, ...), so the pmf and the next-period row are read as contiguous, coalesced
//    runs, and a warp shuffle tree adds the 32 double partial sums;
//  * order decision V(x): one warp per stock level, the lanes split the candidate order-up-to
//    levels and a shuffle tree takes the minimum (min is exact in any order).
// Rows produced inside the kernel are read with ordinary loads, never through the read-only
// path. The table goes to the host once, at the end.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

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

constexpr int THREADS = 256;
constexpr unsigned FULL = 0xffffffffu;

struct Params {
    int horizon, states, max_inv, max_order, max_demand;
    float order_cost, fixed_cost, holding, shortage;
};

__global__ void __launch_bounds__(THREADS)
inventory_coop(Params q, const float* __restrict__ pmf_all, float* table, float* expected)
{
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * THREADS + threadIdx.x) >> 5;
    const int n_warps = gridDim.x * (THREADS / 32);

    for (int t = q.horizon - 1; t >= 0; t--) {
        const float* __restrict__ pmf = pmf_all + (size_t)t * (q.max_demand + 1);
        const float* next = t == q.horizon - 1 ? nullptr : table + (size_t)(t + 1) * q.states;
        const float next0 = next ? next[0] : 0.0f;

        for (int y = warp; y < q.states; y += n_warps) {
            double acc = 0.0;
            for (int d = lane; d <= q.max_demand; d += 32) {
                const int left = y - d;
                const float cost = left >= 0
                                       ? q.holding * (float)left + (next ? next[left] : 0.0f)
                                       : q.shortage * (float)(-left) + next0;
                acc += (double)(pmf[d] * cost);
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(FULL, acc, off);
            if (lane == 0) expected[y] = (float)acc;
        }
        grid.sync();

        float* cur = table + (size_t)t * q.states;
        for (int x = warp; x < q.states; x += n_warps) {
            const int top = min(x + q.max_order, q.max_inv);
            float best = INFINITY;
            for (int y = x + 1 + lane; y <= top; y += 32)
                best = fminf(best, q.fixed_cost + q.order_cost * (float)(y - x) + expected[y]);
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) best = fminf(best, __shfl_xor_sync(FULL, best, off));
            if (lane == 0) cur[x] = fminf(expected[x], best);
        }
        grid.sync();
    }
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    float *d_pmf = nullptr, *d_table = nullptr, *d_exp = nullptr;
    Params q{horizon, max_inv + 1, max_inv, max_order, max_demand,
             order_cost, fixed_cost, holding_cost, shortage_cost};
    const size_t pmf_bytes = (size_t)horizon * (max_demand + 1) * sizeof(float);
    const size_t table_bytes = (size_t)horizon * (max_inv + 1) * sizeof(float);
    int dev = 0, sms = 0, per_sm = 0, coop = 0, grid = 0, want = 0;
    if (horizon <= 0 || max_inv < 0) return;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inventory_coop, THREADS, 0));
    if (!coop || per_sm < 1) {
        fprintf(stderr, "inventory_dp: cooperative launch not available\n");
        return;
    }
    want = (q.states + THREADS / 32 - 1) / (THREADS / 32);  // one warp per level
    grid = sms * per_sm < want ? sms * per_sm : want;

    CK(cudaMalloc(&d_pmf, pmf_bytes));
    CK(cudaMalloc(&d_table, table_bytes));
    CK(cudaMalloc(&d_exp, (size_t)q.states * sizeof(float)));
    CK(cudaMemcpy(d_pmf, demand_pmf, pmf_bytes, cudaMemcpyHostToDevice));
    {
        void* args[] = {&q, &d_pmf, &d_table, &d_exp};
        CK(cudaLaunchCooperativeKernel((void*)inventory_coop, grid, THREADS, args, 0, 0));
    }
    CK(cudaMemcpy(value, d_table, table_bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pmf);
    cudaFree(d_table);
    cudaFree(d_exp);
}
