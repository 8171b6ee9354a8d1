#include <cuda_runtime.h>

#define TAPS 16

// FIR filter with a compile-time tap count: the tap loop is fully unrolled.
__global__ void fir16(const float* in, const float* h, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + TAPS > n) return;
    float acc = 0.0f;
#pragma unroll // expect: CMP-04
    for (int k = 0; k < TAPS; ++k) acc += h[k] * in[i + k];
    out[i] = acc;
}

// Row sums with a partial unroll factor.
__global__ void row_sums(const float* a, float* s, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    #pragma unroll 4 // expect: CMP-04
    for (int c = 0; c < cols; ++c) acc += a[(size_t)r * cols + c];
    s[r] = acc;
}

extern "C" void solution_compute(const float* in, const float* h, float* out, int n,
                                 const float* a, float* s, int rows, int cols) {
    float *din, *dh, *dout, *da, *ds;
    cudaMalloc(&din, sizeof(float) * n); cudaMalloc(&dh, sizeof(float) * TAPS);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dh, h, sizeof(float) * TAPS, cudaMemcpyHostToDevice);
    fir16<<<(n + 255) / 256, 256>>>(din, dh, dout, n);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaMalloc(&da, sizeof(float) * rows * cols); cudaMalloc(&ds, sizeof(float) * rows);
    cudaMemcpy(da, a, sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    row_sums<<<(rows + 127) / 128, 128>>>(da, ds, rows, cols);
    cudaMemcpy(s, ds, sizeof(float) * rows, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dh); cudaFree(dout); cudaFree(da); cudaFree(ds);
}
