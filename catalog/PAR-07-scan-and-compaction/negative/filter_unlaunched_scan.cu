#include <cuda_runtime.h>

// Threshold filter that keeps the array shape (masked values become zero). A
// scan-based compaction kernel exists but is not called.
__global__ void scan_flags_unused(const int* flags, int* pos, int n) {
    __shared__ int s[512];
    int t = threadIdx.x;
    s[t] = t < n ? flags[t] : 0;
    __syncthreads();
    for (int d = 1; d < 512; d <<= 1) {  // ok: PAR-07
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (t < n) pos[t] = s[t];
}

__global__ void threshold_mask(const float* x, float* y, float thr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] >= thr ? x[i] : 0.0f;
}

extern "C" void solution_compute(int n, const float* x, float thr, float* y) {
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    threshold_mask<<<(n + 255) / 256, 256>>>(dx, dy, thr, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
