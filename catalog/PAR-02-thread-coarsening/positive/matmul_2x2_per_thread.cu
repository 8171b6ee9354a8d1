#include <cuda_runtime.h>

// C = A * B for square n x n matrices; each thread owns a 2x2 block of C.
__global__ void matmul_2x2(const float* A, const float* B, float* C, int n) {
    int r = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
    int c = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (r + 1 >= n || c + 1 >= n) return;
    float c00 = 0.f, c01 = 0.f, c10 = 0.f, c11 = 0.f;
    for (int k = 0; k < n; ++k) {
        float a0 = A[r * n + k], a1 = A[(r + 1) * n + k];
        float b0 = B[k * n + c], b1 = B[k * n + c + 1];
        c00 += a0 * b0;
        c01 += a0 * b1;
        c10 += a1 * b0;
        c11 += a1 * b1;
    }
    C[r * n + c] = c00;  // expect: PAR-02
    C[r * n + c + 1] = c01;
    C[(r + 1) * n + c] = c10;
    C[(r + 1) * n + c + 1] = c11;
}

extern "C" void solution_compute(int n, const float* A, const float* B, float* C) {
    size_t bytes = (size_t)n * n * sizeof(float);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, bytes);
    cudaMalloc(&dB, bytes);
    cudaMalloc(&dC, bytes);
    cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
    dim3 block(16, 16);
    dim3 grid((n / 2 + 15) / 16, (n / 2 + 15) / 16);
    matmul_2x2<<<grid, block>>>(dA, dB, dC, n);
    cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}
