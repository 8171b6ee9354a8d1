// BFS levels with explicit frontiers: each level expands only the vertices discovered in the
// previous one (a compact queue), claims each neighbour once with atomicCAS on its level, and
// appends the claimed vertices to the next queue. All buffers are allocated once and the
// levels array is set up on the device; the host reads one counter per level to size the next
// launch and to stop.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_TRY(call)                                                                 \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;

__global__ void init_levels(int n, int source, int* __restrict__ levels, int* __restrict__ queue)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) levels[v] = v == source ? 0 : -1;
    if (v == 0) queue[0] = source;
}

__global__ void expand(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                       const int* __restrict__ frontier, int frontier_size,
                       int* __restrict__ next, int* __restrict__ next_size, int* levels,
                       int depth)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_size) return;
    const int u = frontier[i];
    const int end = row_ptr[u + 1];
    for (int k = row_ptr[u]; k < end; k++) {
        const int v = col_idx[k];
        // cheap test first; the CAS makes exactly one thread the owner of v
        if (levels[v] == -1 && atomicCAS(&levels[v], -1, depth + 1) == -1)
            next[atomicAdd(next_size, 1)] = v;
    }
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = nullptr, *d_col = nullptr, *d_lev = nullptr, *d_q = nullptr, *d_size = nullptr;
    int *cur = nullptr, *nxt = nullptr;
    int m = 0, size = 0, depth = 0;
    const bool valid = source >= 0 && source < n;

    if (n <= 0) return;
    m = row_ptr[n];
    CUDA_TRY(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_col, (size_t)m * sizeof(int) + sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_lev, (size_t)n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_q, 2 * (size_t)n * sizeof(int)));  // two queues of n
    CUDA_TRY(cudaMalloc(&d_size, sizeof(int)));
    CUDA_TRY(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_col, col_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));

    init_levels<<<(n + THREADS - 1) / THREADS, THREADS>>>(n, valid ? source : -1, d_lev, d_q);
    CUDA_TRY(cudaGetLastError());
    cur = d_q;
    nxt = d_q + n;
    size = valid ? 1 : 0;
    while (size > 0) {
        CUDA_TRY(cudaMemset(d_size, 0, sizeof(int)));
        expand<<<(size + THREADS - 1) / THREADS, THREADS>>>(d_ptr, d_col, cur, size, nxt, d_size,
                                                            d_lev, depth);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaMemcpy(&size, d_size, sizeof(int), cudaMemcpyDeviceToHost));
        int* t = cur;
        cur = nxt;
        nxt = t;
        depth++;
    }
    CUDA_TRY(cudaMemcpy(levels, d_lev, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));

done:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_lev);
    cudaFree(d_q);
    cudaFree(d_size);
}
