#include <cuda_runtime.h>

// Level-synchronous BFS that checks every vertex each level (no worklist): a
// vertex is expanded when its level equals the current one.
__global__ void bfs_level(int n, const int* row_ptr, const int* col, int* level, int cur,
                          int* changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (level[v] != cur) return;  // ok: LBL-03
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = col[e];
        if (level[u] < 0) {
            level[u] = cur + 1;
            *changed = 1;
        }
    }
}

extern "C" void solution_compute(int n, int m, const int* row_ptr, const int* col, int source,
                                 int* level) {
    int *drp, *dcol, *dlev, *dchanged;
    cudaMalloc(&drp, (n + 1) * sizeof(int));
    cudaMalloc(&dcol, m * sizeof(int));
    cudaMalloc(&dlev, n * sizeof(int));
    cudaMalloc(&dchanged, sizeof(int));
    cudaMemcpy(drp, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dcol, col, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dlev, 0xff, n * sizeof(int));
    int zero = 0;
    cudaMemcpy(dlev + source, &zero, sizeof(int), cudaMemcpyHostToDevice);
    int changed = 1;
    for (int cur = 0; changed; ++cur) {
        changed = 0;
        cudaMemcpy(dchanged, &changed, sizeof(int), cudaMemcpyHostToDevice);
        bfs_level<<<(n + 255) / 256, 256>>>(n, drp, dcol, dlev, cur, dchanged);
        cudaMemcpy(&changed, dchanged, sizeof(int), cudaMemcpyDeviceToHost);
    }
    cudaMemcpy(level, dlev, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dcol);
    cudaFree(dlev);
    cudaFree(dchanged);
}
