// BFS levels, level by level with one thread per vertex and a changed flag read back by the
// host after each level (the levels array is started on the host), with the kernel tuned:
// read-only loads of the graph, the row bounds loaded once, an unrolled edge loop, and one
// flag store per thread instead of one per labelled neighbour.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, \
                    __LINE__);                                                         \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

__global__ void __launch_bounds__(256)
bfs_level(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
          int* __restrict__ levels, int level, int* __restrict__ changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || levels[u] != level) return;
    const int begin = __ldg(row_ptr + u), end = __ldg(row_ptr + u + 1);
    const int next = level + 1;
    int found = 0;
#pragma unroll 4
    for (int k = begin; k < end; k++) {
        const int v = __ldg(col_idx + k);
        const int unvisited = levels[v] == -1;
        if (unvisited) levels[v] = next;  // racing writers all store the same level
        found |= unvisited;
    }
    if (found) *changed = 1;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int* h_levels = NULL;
    int *d_row_ptr = NULL, *d_col_idx = NULL, *d_levels = NULL, *d_changed = NULL;
    int m, changed, level;
    int threads = 256;
    int blocks;

    if (n <= 0) return;
    m = row_ptr[n];
    blocks = (n + threads - 1) / threads;

    h_levels = (int*)malloc((size_t)n * sizeof(int));
    if (!h_levels) return;
    for (int v = 0; v < n; v++) h_levels[v] = -1;
    if (source >= 0 && source < n) h_levels[source] = 0;

    CHECK(cudaMalloc((void**)&d_row_ptr, (size_t)(n + 1) * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_col_idx, (size_t)m * sizeof(int) + 4));
    CHECK(cudaMalloc((void**)&d_levels, (size_t)n * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_changed, sizeof(int)));

    CHECK(cudaMemcpy(d_row_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col_idx, col_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_levels, h_levels, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    level = 0;
    changed = (source >= 0 && source < n);
    while (changed) {
        changed = 0;
        CHECK(cudaMemcpy(d_changed, &changed, sizeof(int), cudaMemcpyHostToDevice));
        bfs_level<<<blocks, threads>>>(n, d_row_ptr, d_col_idx, d_levels, level, d_changed);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
        level++;
    }

    CHECK(cudaMemcpy(levels, d_levels, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_row_ptr);
    cudaFree(d_col_idx);
    cudaFree(d_levels);
    cudaFree(d_changed);
    free(h_levels);
}
