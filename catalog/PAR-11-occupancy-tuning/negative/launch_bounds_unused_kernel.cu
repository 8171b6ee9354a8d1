#include <cuda_runtime.h>

// Two versions of a clamp kernel; only the plain one is launched, so the
// __launch_bounds__ hint on the other never applies.
__global__ void __launch_bounds__(512, 2) clamp_tuned(float* x, float lo, float hi, int n) {  // ok: PAR-11
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fminf(fmaxf(x[i], lo), hi);
}

__global__ void clamp_plain(float* x, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fminf(fmaxf(x[i], lo), hi);
}

extern "C" void solution_compute(int n, float lo, float hi, float* x) {
    float* dx;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    clamp_plain<<<(n + 255) / 256, 256>>>(dx, lo, hi, n);
    cudaMemcpy(x, dx, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
}
