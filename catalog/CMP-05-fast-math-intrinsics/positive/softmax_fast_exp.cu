#include <cuda_runtime.h>

// Row-wise logistic scoring with hardware exponentials and division.
__global__ void scores(const float* logits, float* p, int n, float temp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float e = __expf(-logits[i] / temp);  // expect: CMP-05
    p[i] = __fdividef(1.0f, 1.0f + e);    // expect: CMP-05
}

extern "C" void solution_compute(const float* logits, float* p, int n, float temp) {
    float *dl, *dp;
    cudaMalloc(&dl, sizeof(float) * n);
    cudaMalloc(&dp, sizeof(float) * n);
    cudaMemcpy(dl, logits, sizeof(float) * n, cudaMemcpyHostToDevice);
    scores<<<(n + 255) / 256, 256>>>(dl, dp, n, temp);
    cudaMemcpy(p, dp, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dl); cudaFree(dp);
}
