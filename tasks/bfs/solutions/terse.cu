// Level-synchronous BFS (CUDA) with frontier queues.
// Each level: grid-stride over the current frontier, claim unvisited neighbours with atomicCAS,
// append them to the next frontier using warp-aggregated atomics (one atomicAdd per warp).
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

__device__ __forceinline__ void warpAggregatedPush(int* queue, int* tail, int v)
{
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    const int rank = __popc(mask & ((1u << lane) - 1));
    int base = 0;
    if (lane == leader) base = atomicAdd(tail, __popc(mask));
    base = __shfl_sync(mask, base, leader);
    queue[base + rank] = v;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
bfsLevel(const int* __restrict__ rowPtr, const int* __restrict__ colIdx, int* __restrict__ levels,
         const int* __restrict__ frontier, int frontierSize, int* __restrict__ next,
         int* __restrict__ nextSize, int depth)
{
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < frontierSize; i += gridDim.x * BLOCK) {
        const int u = frontier[i];
        for (int k = rowPtr[u]; k < rowPtr[u + 1]; ++k) {
            const int v = colIdx[k];
            if (levels[v] == -1 && atomicCAS(&levels[v], -1, depth + 1) == -1)
                warpAggregatedPush(next, nextSize, v);
        }
    }
}

static bool bfs(int n, const int* rowPtr, const int* colIdx, int source, int* levels)
{
    constexpr int BLOCK = 256;
    const int m = rowPtr[n];
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

    std::vector<int> hLevels(n, -1);
    const bool valid = source >= 0 && source < n;
    if (valid) hLevels[source] = 0;

    int *dRow = nullptr, *dCol = nullptr, *dLev = nullptr, *dQ = nullptr, *dSize = nullptr;
    auto freeAll = [&]() { cudaFree(dRow); cudaFree(dCol); cudaFree(dLev); cudaFree(dQ); cudaFree(dSize); };
    bool ok = cudaMalloc(&dRow, (n + 1) * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dCol, std::max<size_t>((size_t)m, 1) * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dLev, n * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dQ, 2 * (size_t)n * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&dSize, sizeof(int)) == cudaSuccess;
    if (!ok) { freeAll(); std::fprintf(stderr, "cudaMalloc failed\n"); return false; }

    ok = cudaMemcpy(dRow, rowPtr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(dCol, colIdx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(dLev, hLevels.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess;
    int* cur = dQ;
    int* nxt = dQ + n;
    int size = 0;
    if (ok && valid) {
        ok = cudaMemcpy(cur, &source, sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess;
        size = 1;
    }
    for (int depth = 0; ok && size > 0; ++depth) {
        const int grid = std::min((size + BLOCK - 1) / BLOCK, sms * 8);
        ok = cudaMemset(dSize, 0, sizeof(int)) == cudaSuccess;
        bfsLevel<BLOCK><<<grid, BLOCK>>>(dRow, dCol, dLev, cur, size, nxt, dSize, depth);
        ok = ok && cudaGetLastError() == cudaSuccess &&
             cudaMemcpy(&size, dSize, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
        std::swap(cur, nxt);
    }
    if (ok) ok = cudaMemcpy(hLevels.data(), dLev, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) std::copy(hLevels.begin(), hLevels.end(), levels);
    else std::fprintf(stderr, "bfs failed\n");
    freeAll();
    return ok;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    if (n <= 0) return;
    bfs(n, row_ptr, col_idx, source, levels);
}
