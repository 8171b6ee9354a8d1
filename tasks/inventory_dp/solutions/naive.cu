// Inventory replenishment DP on the GPU, straightforward port.
// The periods are processed backwards like the CPU code. For each period the demand
// distribution is copied to the GPU, one kernel computes the expected cost L(y) (one thread
// per order-up-to level) and one computes V(x) (one thread per stock level); V is copied back
// into the output table and kept on the GPU as the next period's cost-to-go.
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

__global__ void expected_cost(int states, int max_demand, const float* pmf, const float* next,
                              float holding_cost, float shortage_cost, float* expected)
{
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= states) return;
    double acc = 0.0;
    for (int d = 0; d <= max_demand; d++) {
        int left = y - d;
        float cost;
        if (left >= 0)
            cost = holding_cost * (float)left + next[left];
        else
            cost = shortage_cost * (float)(-left) + next[0];
        acc += (double)(pmf[d] * cost);
    }
    expected[y] = (float)acc;
}

__global__ void best_order(int states, int max_inv, int max_order, float order_cost,
                           float fixed_cost, const float* expected, float* cur)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= states) return;
    int top = x + max_order < max_inv ? x + max_order : max_inv;
    float best = expected[x];
    for (int y = x + 1; y <= top; y++) {
        float c = fixed_cost + order_cost * (float)(y - x) + expected[y];
        if (c < best) best = c;
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
    int threads = 256;
    int blocks = (states + threads - 1) / threads;

    if (horizon <= 0 || max_inv < 0) return;

    CHECK(cudaMalloc((void**)&d_pmf, pmf_bytes));
    CHECK(cudaMalloc((void**)&d_next, row_bytes));
    CHECK(cudaMalloc((void**)&d_cur, row_bytes));
    CHECK(cudaMemset(d_next, 0, row_bytes));  // V after the last period is 0

    for (int t = horizon - 1; t >= 0; t--) {
        CHECK(cudaMemcpy(d_pmf, demand_pmf + (size_t)t * (max_demand + 1), pmf_bytes,
                         cudaMemcpyHostToDevice));
        CHECK(cudaMalloc((void**)&d_expected, row_bytes));

        expected_cost<<<blocks, threads>>>(states, max_demand, d_pmf, d_next, holding_cost,
                                           shortage_cost, d_expected);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());

        best_order<<<blocks, threads>>>(states, max_inv, max_order, order_cost, fixed_cost,
                                        d_expected, d_cur);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());

        CHECK(cudaMemcpy(value + (size_t)t * states, d_cur, row_bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(d_expected));
        d_expected = NULL;

        float* tmp = d_next;  // this period's V is the next period's cost-to-go
        d_next = d_cur;
        d_cur = tmp;
    }

cleanup:
    cudaFree(d_pmf);
    cudaFree(d_next);
    cudaFree(d_cur);
    cudaFree(d_expected);
}
