// Baseline CUDA port of bfs: level-synchronous top-down BFS, one thread per vertex per level;
// the host loops until a level adds no vertex.
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

__global__ void init_levels(int n, int* levels, int source)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) levels[v] = (v == source) ? 0 : -1;
}

__global__ void expand(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                       int* levels, int depth, int* changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || levels[u] != depth) return;
    for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
        int v = col_idx[k];
        // Any thread that claims v writes the same depth + 1; the CAS keeps it single-writer.
        if (levels[v] < 0 && atomicCAS(&levels[v], -1, depth + 1) == -1) *changed = 1;
    }
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = nullptr, *d_col = nullptr, *d_lev = nullptr, *d_changed = nullptr;
    int m = 0, changed = 1, depth = 0;
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (n <= 0) return;
    m = row_ptr[n];
    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_col, (size_t)m * sizeof(int) + 1));
    CK(cudaMalloc(&d_lev, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_changed, sizeof(int)));
    CK(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, col_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    init_levels<<<blocks, threads>>>(n, d_lev, (source >= 0 && source < n) ? source : -2);
    CK(cudaGetLastError());
    while (changed && source >= 0 && source < n) {
        changed = 0;
        CK(cudaMemcpy(d_changed, &changed, sizeof(int), cudaMemcpyHostToDevice));
        expand<<<blocks, threads>>>(n, d_ptr, d_col, d_lev, depth, d_changed);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
        depth++;
    }
    CK(cudaMemcpy(levels, d_lev, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_lev);
    cudaFree(d_changed);
}
