// Case: overlap needs two streams and reports streams as intensity.
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, const float* x, float* y) {
    float *d_x, *d_y;
    cudaStream_t s[2];
    for (int k = 0; k < 2; ++k) cudaStreamCreate(&s[k]);
    int half = n / 2;
    for (int k = 0; k < 2; ++k) {
        cudaMemcpyAsync(d_x + k * half, x + k * half, half * 4, cudaMemcpyHostToDevice, s[k]);  // expect: HST-03
        step<<<(half + 255) / 256, 256, 0, s[k]>>>(d_x + k * half, d_y + k * half, half);
        cudaMemcpyAsync(y + k * half, d_y + k * half, half * 4, cudaMemcpyDeviceToHost, s[k]);  // expect: HST-03
    }
}
