#include <cuda_runtime.h>

// Nearest centroid with partial-distance bounding: the dimension loop stops as soon as the running
// distance cannot beat the best centroid found so far.
__global__ void assign(const float* pts, const float* cent, int* label, int n, int k, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = 3.0e38f;
    int arg = 0;
    for (int c = 0; c < k; ++c) {
        float acc = 0.0f;
        for (int j = 0; j < d; ++j) {
            float diff = pts[(size_t)i * d + j] - cent[c * d + j];
            acc += diff * diff;
            if (acc >= best) break; // expect: CMP-09
        }
        if (acc < best) { best = acc; arg = c; }
    }
    label[i] = arg;
}

extern "C" void solution_compute(const float* pts, const float* cent, int* label, int n, int k, int d) {
    float *dp, *dc; int* dl;
    cudaMalloc(&dp, sizeof(float) * n * d);
    cudaMalloc(&dc, sizeof(float) * k * d);
    cudaMalloc(&dl, sizeof(int) * n);
    cudaMemcpy(dp, pts, sizeof(float) * n * d, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, cent, sizeof(float) * k * d, cudaMemcpyHostToDevice);
    assign<<<(n + 127) / 128, 128>>>(dp, dc, dl, n, k, d);
    cudaMemcpy(label, dl, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaFree(dp); cudaFree(dc); cudaFree(dl);
}
