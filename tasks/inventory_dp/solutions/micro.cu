// Inventory replenishment DP: per period, the demand distribution goes to the GPU, one kernel
// computes L(y) (a thread per level), one computes V(x) (a thread per level), and V comes back
// to the output table (the plain port's structure). Inside the kernels: the period's pmf is
// read from constant memory (every thread of a warp reads the same pmf[d] at the same time,
// which the constant cache broadcasts), the demand loop is split at d = y so neither half
// branches per term, the order loop is unrolled, read-only loads, fused multiply-adds and
// launch bounds. Both loops keep the reference's order, so the sums are the same.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),         \
                    __FILE__, __LINE__);                                               \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

#define THREADS 256
#define CONST_PMF 8192  // pmf entries that fit the constant bank used here

__constant__ float c_pmf[CONST_PMF];

template <bool FROM_CONST>
__device__ __forceinline__ float pmf_at(const float* __restrict__ pmf, int d)
{
    return FROM_CONST ? c_pmf[d] : __ldg(pmf + d);
}

template <bool FROM_CONST>
__global__ void __launch_bounds__(THREADS)
expected_cost(int states, int max_demand, const float* __restrict__ pmf,
              const float* __restrict__ next, float holding_cost, float shortage_cost,
              float* __restrict__ expected)
{
    const int y = blockIdx.x * THREADS + threadIdx.x;
    if (y >= states) return;
    const int split = y < max_demand ? y : max_demand;  // d <= split: stock left over
    double acc = 0.0;
#pragma unroll 4
    for (int d = 0; d <= split; d++) {
        const int left = y - d;
        const float cost = fmaf(holding_cost, (float)left, __ldg(next + left));
        acc += (double)(pmf_at<FROM_CONST>(pmf, d) * cost);
    }
    const float next0 = __ldg(next);
#pragma unroll 4
    for (int d = split + 1; d <= max_demand; d++) {
        const float cost = fmaf(shortage_cost, (float)(d - y), next0);
        acc += (double)(pmf_at<FROM_CONST>(pmf, d) * cost);
    }
    expected[y] = (float)acc;
}

__global__ void __launch_bounds__(THREADS)
best_order(int states, int max_inv, int max_order, float order_cost, float fixed_cost,
           const float* __restrict__ expected, float* __restrict__ cur)
{
    const int x = blockIdx.x * THREADS + threadIdx.x;
    if (x >= states) return;
    const int top = min(x + max_order, max_inv);
    float best = __ldg(expected + x);
#pragma unroll 8
    for (int y = x + 1; y <= top; y++) {
        const float c = fmaf(order_cost, (float)(y - x), fixed_cost) + __ldg(expected + y);
        best = fminf(best, c);
    }
    cur[x] = best;
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    float* d_pmf = NULL;
    float* d_next = NULL;
    float* d_cur = NULL;
    float* d_expected = NULL;
    int states = max_inv + 1;
    size_t row_bytes = (size_t)states * sizeof(float);
    size_t pmf_bytes = (size_t)(max_demand + 1) * sizeof(float);
    int blocks = (states + THREADS - 1) / THREADS;
    bool use_const = max_demand + 1 <= CONST_PMF;

    if (horizon <= 0 || max_inv < 0) return;

    if (!use_const) CHECK(cudaMalloc((void**)&d_pmf, pmf_bytes));
    CHECK(cudaMalloc((void**)&d_next, row_bytes));
    CHECK(cudaMalloc((void**)&d_cur, row_bytes));
    CHECK(cudaMemset(d_next, 0, row_bytes));

    for (int t = horizon - 1; t >= 0; t--) {
        const float* pmf_t = demand_pmf + (size_t)t * (max_demand + 1);
        if (use_const)
            CHECK(cudaMemcpyToSymbol(c_pmf, pmf_t, pmf_bytes));
        else
            CHECK(cudaMemcpy(d_pmf, pmf_t, pmf_bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMalloc((void**)&d_expected, row_bytes));

        if (use_const)
            expected_cost<true><<<blocks, THREADS>>>(states, max_demand, d_pmf, d_next,
                                                     holding_cost, shortage_cost, d_expected);
        else
            expected_cost<false><<<blocks, THREADS>>>(states, max_demand, d_pmf, d_next,
                                                      holding_cost, shortage_cost, d_expected);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());

        best_order<<<blocks, THREADS>>>(states, max_inv, max_order, order_cost, fixed_cost,
                                        d_expected, d_cur);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());

        CHECK(cudaMemcpy(value + (size_t)t * states, d_cur, row_bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(d_expected));
        d_expected = NULL;

        float* tmp = d_next;
        d_next = d_cur;
        d_cur = tmp;
    }

cleanup:
    cudaFree(d_pmf);
    cudaFree(d_next);
    cudaFree(d_cur);
    cudaFree(d_expected);
}
