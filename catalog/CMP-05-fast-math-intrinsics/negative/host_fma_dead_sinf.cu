#include <cuda_runtime.h>
#include <math.h>

// fmaf on the host and __sinf in a kernel that nobody launches: no device fast math on the path.
__global__ void fast_wave(const float* t, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __sinf(t[i]); // ok: CMP-05
}

__global__ void wave(const float* t, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = sinf(t[i]);
}

extern "C" void solution_compute(const float* t, float* y, int n, float gain, float bias) {
    float *dt, *dy;
    cudaMalloc(&dt, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dt, t, sizeof(float) * n, cudaMemcpyHostToDevice);
    wave<<<(n + 255) / 256, 256>>>(dt, dy, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) y[i] = fmaf(gain, y[i], bias); // ok: CMP-05
    cudaFree(dt); cudaFree(dy);
}
