// Inventory replenishment DP run entirely by one thread block.
//
// The state space is a few thousand levels, so a single block of 1024 threads can hold a
// period's demand distribution and expected-cost row in shared memory and separate the two
// phases of a period with __syncthreads() alone: one launch for the whole horizon, no grid
// synchronisation, and the expected-cost row never leaves the SM. The price is that only one
// SM works. Rows of the value table are written to global memory, where the same block reads
// the previous period's row back (through its own L1). If a row would not fit in shared
// memory, the expected-cost row goes to a global scratch buffer instead.
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

constexpr int THREADS = 1024;

template <bool ROW_IN_SMEM>
__global__ void __launch_bounds__(THREADS)
inventory_block(int horizon, int max_inv, int max_order, int max_demand,
                const float* __restrict__ pmf_all, float order_cost, float fixed_cost,
                float holding, float shortage, float* table, float* scratch)
{
    extern __shared__ float sh[];
    const int states = max_inv + 1;
    float* s_pmf = sh;
    float* L = ROW_IN_SMEM ? sh + (max_demand + 1) : scratch;
    for (int t = horizon - 1; t >= 0; t--) {
        const float* pmf = pmf_all + (size_t)t * (max_demand + 1);
        const float* next = table + (size_t)(t + 1) * states;  // unused in the last period
        const bool last = t == horizon - 1;
        for (int d = threadIdx.x; d <= max_demand; d += THREADS) s_pmf[d] = pmf[d];
        __syncthreads();

        const float next0 = last ? 0.0f : next[0];
        for (int y = threadIdx.x; y < states; y += THREADS) {
            double acc = 0.0;
            for (int d = 0; d <= max_demand; d++) {
                const int left = y - d;
                const float cost = left >= 0
                                       ? holding * (float)left + (last ? 0.0f : next[left])
                                       : shortage * (float)(-left) + next0;
                acc += (double)(s_pmf[d] * cost);
            }
            L[y] = (float)acc;
        }
        __syncthreads();

        float* cur = table + (size_t)t * states;
        for (int x = threadIdx.x; x < states; x += THREADS) {
            const int top = x + max_order < max_inv ? x + max_order : max_inv;
            float best = L[x];
            for (int y = x + 1; y <= top; y++) {
                const float c = fixed_cost + order_cost * (float)(y - x) + L[y];
                if (c < best) best = c;
            }
            cur[x] = best;
        }
        __syncthreads();  // row t complete, s_pmf and L free for the next period
    }
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    float *d_pmf = nullptr, *d_table = nullptr, *d_scratch = nullptr;
    const int states = max_inv + 1;
    const size_t pmf_bytes = (size_t)horizon * (max_demand + 1) * sizeof(float);
    const size_t table_bytes = (size_t)horizon * states * sizeof(float);
    size_t smem = (size_t)(max_demand + 1 + states) * sizeof(float);
    int dev = 0, optin = 0;
    bool in_smem = true;
    if (horizon <= 0 || max_inv < 0) return;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (smem > (size_t)optin) {
        in_smem = false;
        smem = (size_t)(max_demand + 1) * sizeof(float);
    }
    if (smem > (size_t)optin) {
        fprintf(stderr, "inventory_dp: demand distribution too long for shared memory\n");
        return;
    }
    if (in_smem) {
        CK(cudaFuncSetAttribute(inventory_block<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
    } else {
        CK(cudaFuncSetAttribute(inventory_block<false>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CK(cudaMalloc(&d_scratch, (size_t)states * sizeof(float)));
    }
    CK(cudaMalloc(&d_pmf, pmf_bytes));
    CK(cudaMalloc(&d_table, table_bytes));
    CK(cudaMemcpy(d_pmf, demand_pmf, pmf_bytes, cudaMemcpyHostToDevice));
    if (in_smem)
        inventory_block<true><<<1, THREADS, smem>>>(horizon, max_inv, max_order, max_demand, d_pmf,
                                                    order_cost, fixed_cost, holding_cost,
                                                    shortage_cost, d_table, d_scratch);
    else
        inventory_block<false><<<1, THREADS, smem>>>(horizon, max_inv, max_order, max_demand, d_pmf,
                                                     order_cost, fixed_cost, holding_cost,
                                                     shortage_cost, d_table, d_scratch);
    CK(cudaGetLastError());
    CK(cudaMemcpy(value, d_table, table_bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pmf);
    cudaFree(d_table);
    cudaFree(d_scratch);
}
