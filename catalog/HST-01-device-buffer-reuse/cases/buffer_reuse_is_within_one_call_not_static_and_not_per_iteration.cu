// Case: buffer reuse is within one call not static and not per iteration.
// line 9: a, allocated once and used in the loop; line 10: static storage (AP-04);
// line 12: allocation per iteration
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, int steps, float* out) {
    static float* cached = nullptr;
    float *a, *b;
    cudaMalloc(&a, n * sizeof(float));  // expect: HST-01
    if (!cached) cudaMalloc(&cached, n * sizeof(float));
    for (int t = 0; t < steps; ++t) {
        cudaMalloc(&b, n * sizeof(float));
        step<<<(n + 255) / 256, 256>>>(a, b, n);
        step<<<(n + 255) / 256, 256>>>(b, cached, n);
        cudaFree(b);
    }
}
