#include <cuda_runtime.h>

// Leaky ReLU and a hinge loss written without branches: the comparison result is used as a number.
__global__ void leaky_relu(const float* x, float* y, int n, float slope) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float pos = (float)(v > 0.0f); // expect: CMP-06
    y[i] = v * (pos + slope * (1.0f - pos));
}

__global__ void hinge(const float* score, const int* label, float* loss, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = 1.0f - (2 * label[i] - 1) * score[i];
    loss[i] = m * (m > 0.0f); // expect: CMP-06
}

extern "C" void solution_compute(const float* x, float* y, int n, float slope,
                                 const float* score, const int* label, float* loss) {
    float *dx, *dy, *ds, *dl; int* dlab;
    cudaMalloc(&dx, sizeof(float) * n); cudaMalloc(&dy, sizeof(float) * n);
    cudaMalloc(&ds, sizeof(float) * n); cudaMalloc(&dl, sizeof(float) * n);
    cudaMalloc(&dlab, sizeof(int) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(ds, score, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dlab, label, sizeof(int) * n, cudaMemcpyHostToDevice);
    leaky_relu<<<(n + 255) / 256, 256>>>(dx, dy, n, slope);
    hinge<<<(n + 255) / 256, 256>>>(ds, dlab, dl, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(loss, dl, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(ds); cudaFree(dl); cudaFree(dlab);
}
