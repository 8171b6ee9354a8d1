#include <cuda_runtime.h>

// Reference: queue-based BFS. Port: level-synchronous BFS that scans all vertices per level.
__global__ void bfs_level(const int* rowptr, const int* adj, int* level, int n, int cur, int* changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (level[v] == cur) { // expect: CMP-02
        for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
            int u = adj[e];
            if (level[u] < 0) { level[u] = cur + 1; *changed = 1; }
        }
    }
}

// Reference: std::sort of the distances. Port: bitonic sorting network (n a power of two).
__global__ void bitonic_step(float* d, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ixj = i ^ j; // expect: CMP-02
    if (ixj > i) {
        bool up = (i & k) == 0;
        if ((d[i] > d[ixj]) == up) { float t = d[i]; d[i] = d[ixj]; d[ixj] = t; } // expect: CMP-02
    }
}

extern "C" void solution_compute(const int* rowptr, const int* adj, int n, int nnz, int src,
                                 int* level_out, float* dist, int m) {
    int *drp, *dadj, *dlev, *dch;
    cudaMalloc(&drp, sizeof(int) * (n + 1)); cudaMalloc(&dadj, sizeof(int) * nnz);
    cudaMalloc(&dlev, sizeof(int) * n); cudaMalloc(&dch, sizeof(int));
    cudaMemcpy(drp, rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dadj, adj, sizeof(int) * nnz, cudaMemcpyHostToDevice);
    cudaMemset(dlev, 0xff, sizeof(int) * n);
    int zero = 0;
    cudaMemcpy(dlev + src, &zero, sizeof(int), cudaMemcpyHostToDevice);
    for (int cur = 0; ; ++cur) { // expect: CMP-02
        int changed = 0;
        cudaMemcpy(dch, &changed, sizeof(int), cudaMemcpyHostToDevice);
        bfs_level<<<(n + 255) / 256, 256>>>(drp, dadj, dlev, n, cur, dch);
        cudaMemcpy(&changed, dch, sizeof(int), cudaMemcpyDeviceToHost);
        if (!changed) break;
    }
    cudaMemcpy(level_out, dlev, sizeof(int) * n, cudaMemcpyDeviceToHost);

    float* dd;
    cudaMalloc(&dd, sizeof(float) * m);
    cudaMemcpy(dd, dist, sizeof(float) * m, cudaMemcpyHostToDevice);
    for (int k = 2; k <= m; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            bitonic_step<<<(m + 255) / 256, 256>>>(dd, j, k);
    cudaMemcpy(dist, dd, sizeof(float) * m, cudaMemcpyDeviceToHost);
    cudaFree(drp); cudaFree(dadj); cudaFree(dlev); cudaFree(dch); cudaFree(dd);
}
