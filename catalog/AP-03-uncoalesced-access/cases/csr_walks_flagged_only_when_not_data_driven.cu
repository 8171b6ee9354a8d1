// Case: csr walks flagged only when not data driven.
#include <cuda_runtime.h>
__global__ void spmv(const int* rp, const int* ci, const float* v, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float s = 0.0f;
    for (int k = rp[row]; k < rp[row + 1]; ++k) s += v[k] * x[ci[k]];  // expect: AP-03
    y[row] = s;
}
__global__ void bfs_level(const int* rp, const int* ci, int* depth, int n, int level) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || depth[u] != level) return;
    for (int k = rp[u]; k < rp[u + 1]; ++k) if (depth[ci[k]] < 0) depth[ci[k]] = level + 1;
}
__global__ void bfs_queue(const int* rp, const int* ci, const int* q, int qn, int* depth, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= qn) return;
    int u = q[t];
    for (int k = rp[u]; k < rp[u + 1]; ++k) if (depth[ci[k]] < 0) depth[ci[k]] = level + 1;
}
extern "C" void solution_compute(int n, int* rp, int* ci, float* v, float* x, float* y, int* d, int* q) {
    spmv<<<(n + 255) / 256, 256>>>(rp, ci, v, x, y, n);
    bfs_level<<<(n + 255) / 256, 256>>>(rp, ci, d, n, 0);
    bfs_queue<<<(n + 255) / 256, 256>>>(rp, ci, q, n, d, 0);
}
