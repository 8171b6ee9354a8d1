#include <cuda_runtime.h>

// Bellman-Ford relaxation where only vertices whose distance changed in the previous round relax
// their edges; the reference relaxes every edge every round.
__global__ void relax(const int* rowptr, const int* col, const float* w, float* dist,
                      const int* active, int* next_active, int n, int* any) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (!active[v]) return; // expect: CMP-09
    float dv = dist[v];
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
        int u = col[e];
        float nd = dv + w[e];
        if (nd < dist[u]) {
            atomicMin((int*)&dist[u], __float_as_int(nd));
            next_active[u] = 1;
            *any = 1;
        }
    }
}

extern "C" void solution_compute(const int* rowptr, const int* col, const float* w, int n, int m,
                                 int src, float* dist) {
    int *drp, *dcol, *da, *dna, *dany; float *dw, *dd;
    cudaMalloc(&drp, sizeof(int) * (n + 1)); cudaMalloc(&dcol, sizeof(int) * m);
    cudaMalloc(&dw, sizeof(float) * m); cudaMalloc(&dd, sizeof(float) * n);
    cudaMalloc(&da, sizeof(int) * n); cudaMalloc(&dna, sizeof(int) * n); cudaMalloc(&dany, sizeof(int));
    cudaMemcpy(drp, rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dcol, col, sizeof(int) * m, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, sizeof(float) * m, cudaMemcpyHostToDevice);
    for (int i = 0; i < n; ++i) dist[i] = (i == src) ? 0.0f : 3.0e38f;
    cudaMemcpy(dd, dist, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemset(da, 0, sizeof(int) * n);
    int one = 1;
    cudaMemcpy(da + src, &one, sizeof(int), cudaMemcpyHostToDevice);
    for (int round = 0; round < n; ++round) {
        int any = 0;
        cudaMemcpy(dany, &any, sizeof(int), cudaMemcpyHostToDevice);
        cudaMemset(dna, 0, sizeof(int) * n);
        relax<<<(n + 255) / 256, 256>>>(drp, dcol, dw, dd, da, dna, n, dany);
        cudaMemcpy(&any, dany, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = da; da = dna; dna = t;
        if (!any) break;
    }
    cudaMemcpy(dist, dd, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(drp); cudaFree(dcol); cudaFree(dw); cudaFree(dd); cudaFree(da); cudaFree(dna); cudaFree(dany);
}
