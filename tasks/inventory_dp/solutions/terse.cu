// Finite-horizon inventory DP (fixed + unit order cost, lost sales), backward recursion.
// Per period: warp-per-level expected-cost kernel (lane-strided demand sum, shuffle reduction
// in double), then a thread-per-level grid-stride kernel for the order decision.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t err__ = (x);                                                          \
        if (err__ != cudaSuccess)                                                         \
            throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(err__)); \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <int BS>
__global__ void __launch_bounds__(BS)
expected_cost(int S, int D, const float* __restrict__ pmf, const float* __restrict__ next,
              float h, float p, float* __restrict__ L)
{
    const int lane = threadIdx.x & 31;
    const int nw = gridDim.x * (BS / 32);
    for (int y = (blockIdx.x * BS + threadIdx.x) >> 5; y < S; y += nw) {
        double acc = 0.0;
        for (int d = lane; d <= D; d += 32) {
            const int left = y - d;
            const float c = left >= 0 ? h * float(left) + next[left] : p * float(-left) + next[0];
            acc += double(pmf[d] * c);
        }
#pragma unroll
        for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) L[y] = float(acc);
    }
}

template <int BS>
__global__ void __launch_bounds__(BS)
order_decision(int S, int max_inv, int Q, float c, float K, const float* __restrict__ L,
               float* __restrict__ V)
{
    for (int x = blockIdx.x * BS + threadIdx.x; x < S; x += gridDim.x * BS) {
        const int top = min(x + Q, max_inv);
        float best = L[x];
        for (int y = x + 1; y <= top; ++y) best = fminf(best, K + c * float(y - x) + L[y]);
        V[x] = best;
    }
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    if (horizon <= 0 || max_inv < 0) return;
    try {
        constexpr int BS = 256;
        const int S = max_inv + 1, ND = max_demand + 1;
        int dev = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

        DeviceBuffer<float> pmf(size_t(horizon) * ND), table(size_t(horizon) * S), zero(S), L(S);
        CUDA_CHECK(cudaMemcpy(pmf.ptr, demand_pmf, size_t(horizon) * ND * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(zero.ptr, 0, size_t(S) * sizeof(float)));

        const int g1 = std::min((S + BS / 32 - 1) / (BS / 32), sms * 8);  // warp per level
        const int g2 = std::min((S + BS - 1) / BS, sms * 4);
        for (int t = horizon - 1; t >= 0; --t) {
            const float* next = t == horizon - 1 ? zero.ptr : table.ptr + size_t(t + 1) * S;
            expected_cost<BS><<<g1, BS>>>(S, max_demand, pmf.ptr + size_t(t) * ND, next,
                                          holding_cost, shortage_cost, L.ptr);
            order_decision<BS><<<g2, BS>>>(S, max_inv, max_order, order_cost, fixed_cost, L.ptr,
                                           table.ptr + size_t(t) * S);
        }
        CUDA_CHECK(cudaGetLastError());

        std::vector<float> host(size_t(horizon) * S);
        CUDA_CHECK(cudaMemcpy(host.data(), table.ptr, host.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        std::copy(host.begin(), host.end(), value);
    } catch (const std::exception& e) {
        fprintf(stderr, "inventory_dp: %s\n", e.what());
        cudaDeviceSynchronize();
    }
}
