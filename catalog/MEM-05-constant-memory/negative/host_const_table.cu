#include <cuda_runtime.h>

// A host-side const table whose values are passed by value: no __constant__ memory is used.
static const float kCoef[4] = {0.1f, 0.2f, 0.3f, 0.4f}; // ok: MEM-05

struct Poly { float c0, c1, c2, c3; };

__global__ void eval_poly(const float* x, float* y, int n, Poly p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((p.c3 * v + p.c2) * v + p.c1) * v + p.c0;
    }
}

extern "C" void solution_compute(const float* x, float* y, int n) {
    Poly p = {kCoef[0], kCoef[1], kCoef[2], kCoef[3]};
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    eval_poly<<<(n + 255) / 256, 256>>>(dx, dy, n, p);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
