// Case: overlap needs two streams and reports streams as intensity.
// ok: HST-03
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, const float* x, float* d_x, float* d_y) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync(d_x, x, n * 4, cudaMemcpyHostToDevice, s);
    step<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_y, n);
}
