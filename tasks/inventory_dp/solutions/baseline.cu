// Baseline CUDA port of inventory_dp: per period, one kernel computes L_t(y) (one thread per
// order-up-to level y) and one computes V_t(x) (one thread per stock level x).
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

__global__ void expected_kernel(int states, int max_demand, const float* __restrict__ pmf,
                                const float* __restrict__ next, float holding, float shortage,
                                float* __restrict__ expected)
{
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= states) return;
    double acc = 0.0;
    for (int d = 0; d <= max_demand; d++) {
        int left = y - d;
        float cost = left >= 0 ? holding * (float)left + next[left]
                               : shortage * (float)(-left) + next[0];
        acc += (double)(pmf[d] * cost);
    }
    expected[y] = (float)acc;
}

__global__ void value_kernel(int states, int max_inv, int max_order, float order_cost,
                             float fixed_cost, const float* __restrict__ expected,
                             float* __restrict__ cur)
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
    float *d_pmf = nullptr, *d_val = nullptr, *d_zero = nullptr, *d_exp = nullptr;
    int states = max_inv + 1;
    size_t pmf_bytes = (size_t)horizon * (max_demand + 1) * sizeof(float);
    size_t val_bytes = (size_t)horizon * states * sizeof(float);
    const int threads = 128;
    int blocks = (states + threads - 1) / threads;
    if (horizon <= 0 || max_inv < 0) return;
    CK(cudaMalloc(&d_pmf, pmf_bytes));
    CK(cudaMalloc(&d_val, val_bytes));
    CK(cudaMalloc(&d_zero, (size_t)states * sizeof(float)));
    CK(cudaMalloc(&d_exp, (size_t)states * sizeof(float)));
    CK(cudaMemcpy(d_pmf, demand_pmf, pmf_bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_zero, 0, (size_t)states * sizeof(float)));
    for (int t = horizon - 1; t >= 0; t--) {
        const float* next = (t == horizon - 1) ? d_zero : d_val + (size_t)(t + 1) * states;
        expected_kernel<<<blocks, threads>>>(states, max_demand,
                                             d_pmf + (size_t)t * (max_demand + 1), next,
                                             holding_cost, shortage_cost, d_exp);
        CK(cudaGetLastError());
        value_kernel<<<blocks, threads>>>(states, max_inv, max_order, order_cost, fixed_cost,
                                          d_exp, d_val + (size_t)t * states);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(value, d_val, val_bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pmf);
    cudaFree(d_val);
    cudaFree(d_zero);
    cudaFree(d_exp);
}
