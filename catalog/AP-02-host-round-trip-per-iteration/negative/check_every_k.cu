// Label propagation for connected components; the change counter is copied back only every
// 8 sweeps, not in each iteration.
#include <cuda_runtime.h>

__global__ void init(int* label, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) label[v] = v;
}

__global__ void hook(const int* u, const int* v, int m, int* label, int* changes) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int lu = label[u[e]], lv = label[v[e]];
    if (lu != lv) {
        int lo = min(lu, lv);
        atomicMin(&label[u[e]], lo);
        atomicMin(&label[v[e]], lo);
        atomicAdd(changes, 1);
    }
}

extern "C" void solution_compute(int n, int m, const int* u, const int* v, int* labels) {
    int *d_u, *d_v, *d_label, *d_changes;
    cudaMalloc(&d_u, m * sizeof(int));
    cudaMalloc(&d_v, m * sizeof(int));
    cudaMalloc(&d_label, n * sizeof(int));
    cudaMalloc(&d_changes, sizeof(int));
    cudaMemcpy(d_u, u, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, v, m * sizeof(int), cudaMemcpyHostToDevice);
    init<<<(n + 255) / 256, 256>>>(d_label, n);
    cudaMemset(d_changes, 0, sizeof(int));
    for (int sweep = 1; sweep <= n; ++sweep) {
        hook<<<(m + 255) / 256, 256>>>(d_u, d_v, m, d_label, d_changes);
        if (sweep % 8 == 0) {
            int changes = 0;
            cudaMemcpy(&changes, d_changes, sizeof(int), cudaMemcpyDeviceToHost);  // ok: AP-02
            if (changes == 0) break;
            cudaMemset(d_changes, 0, sizeof(int));
        }
    }
    cudaMemcpy(labels, d_label, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_u); cudaFree(d_v); cudaFree(d_label); cudaFree(d_changes);
}
