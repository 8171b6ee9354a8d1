#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

// Size tests that only pick a block size or skip empty input; no part of the
// work runs on the host.
extern "C" void solution_compute(int n, float a, float* x) {
    if (n <= 0) return;  // ok: LBL-06
    int threads = n < 4096 ? 128 : 256;  // ok: LBL-06
    float* dx;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    scale_kernel<<<(n + threads - 1) / threads, threads>>>(dx, a, n);
    cudaMemcpy(x, dx, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
}
