// Inventory replenishment DP, all periods on the device with shared-memory tiles.
//
// Per period two kernels run back to back on the same stream, with no host synchronisation:
//  * expected cost: a block of B levels y0..y0+B-1 needs V_{t+1} on [y0 - max_demand, y0 + B)
//    and the whole pmf; both are staged in shared memory once per block and every thread then
//    runs the demand loop out of shared memory, in the reference's order (same double sum).
//  * ordering: a block of B stock levels needs L on [x0, x0 + B + max_order); that window is
//    staged in shared memory and each thread scans its own candidates.
// The value table stays on the device (each period reads the row written by the last one)
// and goes to the host once at the end.
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

constexpr int B = 256;

__global__ void __launch_bounds__(B)
expected_kernel(int states, int max_demand, const float* __restrict__ pmf,
                const float* __restrict__ next, float holding, float shortage,
                float* __restrict__ expected)
{
    extern __shared__ float sh[];
    float* s_pmf = sh;                    // max_demand + 1
    float* s_next = sh + max_demand + 1;  // next[y0 - max_demand .. y0 + B), 0 outside
    const int y0 = blockIdx.x * B;
    const int base = y0 - max_demand;
    for (int i = threadIdx.x; i <= max_demand; i += B) s_pmf[i] = pmf[i];
    for (int i = threadIdx.x; i < B + max_demand; i += B) {
        const int lvl = base + i;
        s_next[i] = (lvl >= 0 && lvl < states) ? next[lvl] : 0.0f;
    }
    const float next0 = next[0];
    __syncthreads();

    const int y = y0 + threadIdx.x;
    if (y >= states) return;
    double acc = 0.0;
    for (int d = 0; d <= max_demand; d++) {
        const int left = y - d;
        const float cost = left >= 0 ? holding * (float)left + s_next[left - base]
                                     : shortage * (float)(-left) + next0;
        acc += (double)(s_pmf[d] * cost);
    }
    expected[y] = (float)acc;
}

__global__ void __launch_bounds__(B)
order_kernel(int states, int max_inv, int max_order, float order_cost, float fixed_cost,
             const float* __restrict__ expected, float* __restrict__ cur)
{
    extern __shared__ float s_exp[];  // expected[x0 .. x0 + B + max_order), clipped
    const int x0 = blockIdx.x * B;
    const int span = min(B + max_order, states - x0);
    for (int i = threadIdx.x; i < span; i += B) s_exp[i] = expected[x0 + i];
    __syncthreads();

    const int x = x0 + threadIdx.x;
    if (x >= states) return;
    const int top = min(x + max_order, max_inv);
    float best = s_exp[x - x0];
    for (int y = x + 1; y <= top; y++) {
        const float c = fixed_cost + order_cost * (float)(y - x) + s_exp[y - x0];
        if (c < best) best = c;
    }
    cur[x] = best;
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    float *d_pmf = nullptr, *d_val = nullptr, *d_zero = nullptr, *d_exp = nullptr;
    const int states = max_inv + 1;
    const int order_span = max_order > 0 ? max_order : 0;
    const size_t pmf_bytes = (size_t)horizon * (max_demand + 1) * sizeof(float);
    const size_t val_bytes = (size_t)horizon * states * sizeof(float);
    const size_t smem_exp = (size_t)(2 * max_demand + 1 + B) * sizeof(float);
    const size_t smem_ord = (size_t)(B + order_span) * sizeof(float);
    const int blocks = (states + B - 1) / B;
    if (horizon <= 0 || max_inv < 0) return;
    if (smem_exp > 48 * 1024)
        CK(cudaFuncSetAttribute(expected_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem_exp));
    if (smem_ord > 48 * 1024)
        CK(cudaFuncSetAttribute(order_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem_ord));
    CK(cudaMalloc(&d_pmf, pmf_bytes));
    CK(cudaMalloc(&d_val, val_bytes));
    CK(cudaMalloc(&d_zero, (size_t)states * sizeof(float)));
    CK(cudaMalloc(&d_exp, (size_t)states * sizeof(float)));
    CK(cudaMemcpy(d_pmf, demand_pmf, pmf_bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_zero, 0, (size_t)states * sizeof(float)));
    for (int t = horizon - 1; t >= 0; t--) {
        const float* next = (t == horizon - 1) ? d_zero : d_val + (size_t)(t + 1) * states;
        expected_kernel<<<blocks, B, smem_exp>>>(states, max_demand,
                                                 d_pmf + (size_t)t * (max_demand + 1), next,
                                                 holding_cost, shortage_cost, d_exp);
        CK(cudaGetLastError());
        order_kernel<<<blocks, B, smem_ord>>>(states, max_inv, order_span, order_cost, fixed_cost,
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
