// PageRank (pull-based, CSR of the transposed graph) in CUDA.
// Per iteration: one kernel computes contributions + dangling sum, one kernel pulls over
// in-edges and accumulates the L1 change; both reductions use warp shuffles + shared memory.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(expr)                                                                 \
    do {                                                                                 \
        cudaError_t _e = (expr);                                                         \
        if (_e != cudaSuccess) {                                                         \
            std::fprintf(stderr, "CUDA error '%s' at %s:%d\n", cudaGetErrorString(_e),    \
                         __FILE__, __LINE__);                                            \
            return false;                                                                \
        }                                                                                \
    } while (0)

template <int BLOCK>
__device__ __forceinline__ double blockReduceSum(double val)
{
    static_assert(BLOCK % 32 == 0, "block must be a multiple of the warp size");
    __shared__ double warpSums[BLOCK / 32];
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) val += __shfl_down_sync(0xffffffff, val, o);
    if (lane == 0) warpSums[wid] = val;
    __syncthreads();
    val = (threadIdx.x < BLOCK / 32) ? warpSums[lane] : 0.0;
    if (wid == 0) {
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) val += __shfl_down_sync(0xffffffff, val, o);
    }
    return val;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
contribKernel(int n, const int* __restrict__ deg, const float* __restrict__ rank,
              float* __restrict__ contrib, double* __restrict__ dangling)
{
    double local = 0.0;
    for (int u = blockIdx.x * BLOCK + threadIdx.x; u < n; u += gridDim.x * BLOCK) {
        const int d = deg[u];
        const float r = rank[u];
        contrib[u] = d ? r / (float)d : 0.0f;
        if (!d) local += r;
    }
    local = blockReduceSum<BLOCK>(local);
    if (threadIdx.x == 0) atomicAdd(dangling, local);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
pullKernel(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
           const float* __restrict__ contrib, const float* __restrict__ rank,
           float* __restrict__ next, float damping, const double* __restrict__ sums,
           double* __restrict__ diff)
{
    const float base = (1.0f - damping) / n;
    const float share = (float)(sums[0] / n);
    double local = 0.0;
    for (int v = blockIdx.x * BLOCK + threadIdx.x; v < n; v += gridDim.x * BLOCK) {
        float s = 0.0f;
        for (int k = ptr[v]; k < ptr[v + 1]; ++k) s += contrib[idx[k]];
        const float r = base + damping * (s + share);
        next[v] = r;
        local += fabs((double)r - (double)rank[v]);
    }
    local = blockReduceSum<BLOCK>(local);
    if (threadIdx.x == 0) atomicAdd(diff, local);
}

static bool pagerank(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                     float damping, float tol, int max_iters, float* rank)
{
    constexpr int BLOCK = 256;
    const int m = in_ptr[n];
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int grid = std::min((n + BLOCK - 1) / BLOCK, sms * 8);

    int *dPtr = nullptr, *dIdx = nullptr, *dDeg = nullptr;
    float *dRank = nullptr, *dNext = nullptr, *dContrib = nullptr;
    double* dSums = nullptr;  // [0] dangling, [1] diff
    auto freeAll = [&]() {
        cudaFree(dPtr); cudaFree(dIdx); cudaFree(dDeg);
        cudaFree(dRank); cudaFree(dNext); cudaFree(dContrib); cudaFree(dSums);
    };
    bool ok = cudaMalloc(&dPtr, (n + 1) * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dIdx, std::max<size_t>((size_t)m, 1) * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dDeg, n * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dRank, n * sizeof(float)) == cudaSuccess &&
              cudaMalloc(&dNext, n * sizeof(float)) == cudaSuccess &&
              cudaMalloc(&dContrib, n * sizeof(float)) == cudaSuccess &&
              cudaMalloc(&dSums, 2 * sizeof(double)) == cudaSuccess;
    if (!ok) { freeAll(); std::fprintf(stderr, "cudaMalloc failed\n"); return false; }

    std::vector<float> hRank(n, 1.0f / n);
    ok = cudaMemcpy(dPtr, in_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(dIdx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(dDeg, out_deg, n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(dRank, hRank.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;

    for (int it = 0; ok && it < max_iters; ++it) {
        double h[2];
        ok = cudaMemset(dSums, 0, 2 * sizeof(double)) == cudaSuccess;
        contribKernel<BLOCK><<<grid, BLOCK>>>(n, dDeg, dRank, dContrib, dSums);
        pullKernel<BLOCK><<<grid, BLOCK>>>(n, dPtr, dIdx, dContrib, dRank, dNext, damping, dSums, dSums + 1);
        ok = ok && cudaGetLastError() == cudaSuccess &&
             cudaMemcpy(h, dSums, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess;
        if (!ok) break;
        std::swap(dRank, dNext);
        if (h[1] < tol) break;
    }
    if (ok) ok = cudaMemcpy(hRank.data(), dRank, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) std::copy(hRank.begin(), hRank.end(), rank);
    else std::fprintf(stderr, "pagerank failed\n");
    freeAll();
    return ok;
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    if (n <= 0) return;
    pagerank(n, in_ptr, in_idx, out_deg, damping, tol, max_iters, rank);
}
