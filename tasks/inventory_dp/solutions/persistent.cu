// Inventory replenishment DP in a single persistent launch.
//
// The backward recursion over periods runs inside one cooperative kernel: a fully resident
// grid walks the order-up-to levels (expected cost) and then the stock levels (order
// decision) in grid-stride loops, one level per thread, with a grid-wide barrier after each
// phase instead of two kernel launches per period.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
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

__global__ void __launch_bounds__(THREADS)
inventory_persistent(int horizon, int max_inv, int max_order, int max_demand,
                     const float* __restrict__ pmf_all, float order_cost, float fixed_cost,
                     float holding, float shortage, const float* zero, float* table,
                     float* expected)
{
    cg::grid_group grid = cg::this_grid();
    const int states = max_inv + 1;
    const int tid = blockIdx.x * THREADS + threadIdx.x;
    const int stride = gridDim.x * THREADS;
    for (int t = horizon - 1; t >= 0; t--) {
        const float* pmf = pmf_all + (size_t)t * (max_demand + 1);
        const float* next = t == horizon - 1 ? zero : table + (size_t)(t + 1) * states;
        for (int y = tid; y < states; y += stride) {
            double acc = 0.0;
            for (int d = 0; d <= max_demand; d++) {
                const int left = y - d;
                const float cost = left >= 0 ? holding * (float)left + next[left]
                                             : shortage * (float)(-left) + next[0];
                acc += (double)(pmf[d] * cost);
            }
            expected[y] = (float)acc;
        }
        grid.sync();
        float* cur = table + (size_t)t * states;
        for (int x = tid; x < states; x += stride) {
            const int top = x + max_order < max_inv ? x + max_order : max_inv;
            float best = expected[x];
            for (int y = x + 1; y <= top; y++) {
                const float c = fixed_cost + order_cost * (float)(y - x) + expected[y];
                if (c < best) best = c;
            }
            cur[x] = best;
        }
        grid.sync();
    }
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    float *d_pmf = nullptr, *d_table = nullptr, *d_zero = nullptr, *d_exp = nullptr;
    const int states = max_inv + 1;
    const size_t pmf_bytes = (size_t)horizon * (max_demand + 1) * sizeof(float);
    const size_t table_bytes = (size_t)horizon * states * sizeof(float);
    int dev = 0, sms = 0, per_sm = 0, grid = 0;
    if (horizon <= 0 || max_inv < 0) return;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inventory_persistent, THREADS, 0));
    grid = sms * (per_sm > 0 ? per_sm : 1);
    if (grid > (states + THREADS - 1) / THREADS) grid = (states + THREADS - 1) / THREADS;

    CK(cudaMalloc(&d_pmf, pmf_bytes));
    CK(cudaMalloc(&d_table, table_bytes));
    CK(cudaMalloc(&d_zero, (size_t)states * sizeof(float)));
    CK(cudaMalloc(&d_exp, (size_t)states * sizeof(float)));
    CK(cudaMemcpy(d_pmf, demand_pmf, pmf_bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_zero, 0, (size_t)states * sizeof(float)));
    {
        void* args[] = {&horizon,      &max_inv,     &max_order,    &max_demand,
                        &d_pmf,        &order_cost,  &fixed_cost,   &holding_cost,
                        &shortage_cost, &d_zero,     &d_table,      &d_exp};
        CK(cudaLaunchCooperativeKernel((void*)inventory_persistent, grid, THREADS, args, 0, 0));
    }
    CK(cudaMemcpy(value, d_table, table_bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pmf);
    cudaFree(d_table);
    cudaFree(d_zero);
    cudaFree(d_exp);
}
