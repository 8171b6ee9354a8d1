// Case: buffer reused by a helper loop through aliases.
#include <cuda_runtime.h>
#include <utility>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
static float* run(float* d_a, float* d_b, int n, int steps) {
    float* src = d_a;
    float* dst = d_b;
    for (int s = 0; s < steps; ++s) {
        step<<<(n + 255) / 256, 256>>>(src, dst, n);
        std::swap(src, dst);
    }
    return src;
}
extern "C" void solution_compute(const float* in, float* out, int n, int steps) {
    float *d_a, *d_b;
    cudaMalloc(&d_a, n * sizeof(float));  // expect: HST-01
    cudaMalloc(&d_b, n * sizeof(float));  // expect: HST-01
    cudaMemcpy(d_a, in, n * sizeof(float), cudaMemcpyHostToDevice);
    float* r = run(d_a, d_b, n, steps);
    cudaMemcpy(out, r, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
}
