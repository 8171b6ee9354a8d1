#include <cuda_runtime.h>
#include <math.h>

// A lookup-table kernel that is never launched; the main kernel computes sinf directly.
__global__ void build_sin_table(float* tab, int m) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m) tab[k] = sinf(6.2831853f * k / m); // ok: CMP-03
}

__global__ void wave(const float* phase, float* out, int n, float amp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = amp * sinf(phase[i]);
}

extern "C" void solution_compute(const float* phase, float* out, int n, float amp) {
    float *dp, *dout;
    cudaMalloc(&dp, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(dp, phase, sizeof(float) * n, cudaMemcpyHostToDevice);
    wave<<<(n + 255) / 256, 256>>>(dp, dout, n, amp);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dp); cudaFree(dout);
}
