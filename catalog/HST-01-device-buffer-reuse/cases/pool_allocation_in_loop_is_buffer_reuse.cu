// Case: pool allocation in loop is buffer reuse.
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, int steps, cudaStream_t s) {
    for (int t = 0; t < steps; ++t) {
        float* tmp;
        cudaMallocAsync(&tmp, n * sizeof(float), s);  // expect: HST-01
        step<<<1, 256, 0, s>>>(tmp, tmp, n);
        cudaFreeAsync(tmp, s);
    }
}
