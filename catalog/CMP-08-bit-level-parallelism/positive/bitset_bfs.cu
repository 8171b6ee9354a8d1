#include <cuda_runtime.h>

// Visited set packed 32 vertices per word: test with a mask, set with atomicOr.
__global__ void expand(const int* rowptr, const int* adj, const int* frontier, int fsize,
                       unsigned* visited, int* next, int* next_size, int* dist, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fsize) return;
    int v = frontier[t];
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
        int u = adj[e];
        unsigned bit = 1u << (u & 31);
        if (visited[u >> 5] & bit) continue; // expect: CMP-08
        unsigned old = atomicOr(&visited[u >> 5], bit); // expect: CMP-08
        if (!(old & bit)) {
            dist[u] = level + 1;
            next[atomicAdd(next_size, 1)] = u;
        }
    }
}

extern "C" void solution_compute(const int* rowptr, const int* adj, int n, int nnz, int src, int* dist) {
    int words = (n + 31) / 32;
    int *drp, *dadj, *dfa, *dfb, *dsize, *ddist; unsigned* dvis;
    cudaMalloc(&drp, sizeof(int) * (n + 1)); cudaMalloc(&dadj, sizeof(int) * nnz);
    cudaMalloc(&dfa, sizeof(int) * n); cudaMalloc(&dfb, sizeof(int) * n);
    cudaMalloc(&dsize, sizeof(int)); cudaMalloc(&ddist, sizeof(int) * n);
    cudaMalloc(&dvis, sizeof(unsigned) * words);
    cudaMemcpy(drp, rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dadj, adj, sizeof(int) * nnz, cudaMemcpyHostToDevice);
    cudaMemset(dvis, 0, sizeof(unsigned) * words);
    cudaMemset(ddist, 0xff, sizeof(int) * n);
    unsigned first = 1u << (src & 31);
    int zero = 0;
    cudaMemcpy(dvis + (src >> 5), &first, sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(ddist + src, &zero, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dfa, &src, sizeof(int), cudaMemcpyHostToDevice);
    int fsize = 1;
    for (int level = 0; fsize > 0; ++level) {
        cudaMemset(dsize, 0, sizeof(int));
        expand<<<(fsize + 255) / 256, 256>>>(drp, dadj, dfa, fsize, dvis, dfb, dsize, ddist, level);
        cudaMemcpy(&fsize, dsize, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = dfa; dfa = dfb; dfb = t;
    }
    cudaMemcpy(dist, ddist, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaFree(drp); cudaFree(dadj); cudaFree(dfa); cudaFree(dfb); cudaFree(dsize); cudaFree(ddist); cudaFree(dvis);
}
