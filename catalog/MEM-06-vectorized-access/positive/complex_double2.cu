#include <cuda_runtime.h>

// Pointwise complex multiply on interleaved (re, im) doubles read as double2 (128 bits) and a
// float2 phase table (64 bits).
__global__ void cmul(const double2* a, const float2* phase, double2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double2 u = a[i];     // expect: MEM-06
    float2 p = phase[i];  // expect: MEM-06
    double2 r;
    r.x = u.x * p.x - u.y * p.y;
    r.y = u.x * p.y + u.y * p.x;
    out[i] = r; // expect: MEM-06
}

extern "C" void solution_compute(const double* a, const float* phase, double* out, int n) {
    double2 *da, *dout; float2* dp;
    cudaMalloc(&da, sizeof(double2) * n);
    cudaMalloc(&dp, sizeof(float2) * n);
    cudaMalloc(&dout, sizeof(double2) * n);
    cudaMemcpy(da, a, sizeof(double) * 2 * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dp, phase, sizeof(float) * 2 * n, cudaMemcpyHostToDevice);
    cmul<<<(n + 255) / 256, 256>>>(da, dp, dout, n);
    cudaMemcpy(out, dout, sizeof(double) * 2 * n, cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(dp); cudaFree(dout);
}
