#include <cuda_runtime.h>

// __restrict__ on a written buffer and const without __restrict__: neither is the read-only path.
__global__ void axpy(const float* x,          // ok: MEM-04
                     float* __restrict__ y,    // ok: MEM-04
                     float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Host helper with const __restrict__ parameters: host code, not a GPU load path.
static void host_check(const float* __restrict__ ref, // ok: MEM-04
                       const float* __restrict__ got, // ok: MEM-04
                       int n, int* bad) {
    for (int i = 0; i < n; ++i) if (ref[i] != got[i]) ++*bad;
}

extern "C" void solution_compute(const float* x, float* y, float a, int n) {
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, sizeof(float) * n, cudaMemcpyHostToDevice);
    axpy<<<(n + 255) / 256, 256>>>(dx, dy, a, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    host_check(y, y, n, &bad);
    cudaFree(dx); cudaFree(dy);
}
