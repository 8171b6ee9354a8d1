// BFS levels, level by level: every level launches one thread per vertex, and the threads of
// the vertices on the current level label their unvisited neighbours with the next level. The
// host starts the levels array (all -1, the source 0), and after each level reads back a flag
// that says whether any vertex was labelled.
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

__global__ void bfs_level(int n, const int* row_ptr, const int* col_idx, int* levels, int level,
                          int* changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n && levels[u] == level) {
        for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
            int v = col_idx[k];
            // several threads may label v in the same level; they all write level + 1
            if (levels[v] == -1) {
                levels[v] = level + 1;
                *changed = 1;
            }
        }
    }
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
