// Case: a whole program whose CPU check builds the transposed reference product on the host.
// The transpose belongs to the verification, not to the solution: no data-layout
// transformation. The kernel reads the matrices as they are given.
// ok: MEM-07
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void matvec(const float* a, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float s = 0.0f;
    for (int k = 0; k < n; k++) s += a[row * n + k] * x[k];
    y[row] = s;
}

void matvec_cpu(const float* a, const float* x, float* y, int n) {
    float* at = (float*)malloc(n * n * sizeof(float));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) at[j * n + i] = a[i * n + j];
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 0; k < n; k++) s += at[k * n + i] * x[k];
        y[i] = s;
    }
    free(at);
}

int main(int argc, char** argv) {
    int n = atoi(argv[1]);
    float* a = (float*)malloc(n * n * sizeof(float));
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    float* ref = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n * n; i++) a[i] = 1.0f / (1 + i % 7);
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    float *da, *dx, *dy;
    cudaMalloc(&da, n * n * sizeof(float));
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(da, a, n * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    matvec<<<(n + 127) / 128, 128>>>(da, dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    matvec_cpu(a, x, ref, n);
    for (int i = 0; i < n; i++)
        if (fabsf(y[i] - ref[i]) > 1e-3f) { printf("FAIL\n"); return 1; }
    printf("PASS\n");
    return 0;
}
