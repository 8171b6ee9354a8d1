#include <cuda_runtime.h>
#include <utility>

// Level-synchronous BFS over an explicit frontier: each level expands only the
// vertices in the current queue and appends newly reached ones to the next.
__global__ void expand_frontier(const int* row_ptr, const int* col, const int* frontier,
                                int frontier_size, int* dist, int level, int* next_frontier,
                                int* next_size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_size) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = col[e];
        if (atomicCAS(&dist[u], -1, level + 1) == -1) {
            int pos = atomicAdd(next_size, 1);  // expect: LBL-03
            next_frontier[pos] = u;
        }
    }
}

extern "C" void solution_compute(int n, int m, const int* row_ptr, const int* col, int source,
                                 int* dist) {
    int *drp, *dcol, *ddist, *dq1, *dq2, *dsize;
    cudaMalloc(&drp, (n + 1) * sizeof(int));
    cudaMalloc(&dcol, m * sizeof(int));
    cudaMalloc(&ddist, n * sizeof(int));
    cudaMalloc(&dq1, n * sizeof(int));
    cudaMalloc(&dq2, n * sizeof(int));
    cudaMalloc(&dsize, sizeof(int));
    cudaMemcpy(drp, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dcol, col, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(ddist, 0xff, n * sizeof(int));
    int zero = 0;
    cudaMemcpy(ddist + source, &zero, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dq1, &source, sizeof(int), cudaMemcpyHostToDevice);
    int size = 1, level = 0;
    while (size > 0) {
        cudaMemset(dsize, 0, sizeof(int));
        expand_frontier<<<(size + 255) / 256, 256>>>(drp, dcol, dq1, size, ddist, level, dq2, dsize);
        cudaMemcpy(&size, dsize, sizeof(int), cudaMemcpyDeviceToHost);
        std::swap(dq1, dq2);
        ++level;
    }
    cudaMemcpy(dist, ddist, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dcol);
    cudaFree(ddist);
    cudaFree(dq1);
    cudaFree(dq2);
    cudaFree(dsize);
}
