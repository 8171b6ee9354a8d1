#include <cuda_runtime.h>

// One-pass filter: indices of points inside a circle are appended to the output
// with an atomic slot. The list is the answer, not a worklist for later rounds.
__global__ void select_inside(const float* x, const float* y, int n, float cx, float cy, float r2,
                              int* out_idx, int* out_count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dx = x[i] - cx, dy = y[i] - cy;
    if (dx * dx + dy * dy <= r2) {
        int pos = atomicAdd(out_count, 1);  // ok: LBL-03
        out_idx[pos] = i;
    }
}

extern "C" void solution_compute(int n, const float* x, const float* y, float cx, float cy, float r,
                                 int* out_idx, int* out_count) {
    float *dx, *dy;
    int *didx, *dcount;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&didx, n * sizeof(int));
    cudaMalloc(&dcount, sizeof(int));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dcount, 0, sizeof(int));
    select_inside<<<(n + 255) / 256, 256>>>(dx, dy, n, cx, cy, r * r, didx, dcount);
    cudaMemcpy(out_count, dcount, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(out_idx, didx, *out_count * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(didx);
    cudaFree(dcount);
}
