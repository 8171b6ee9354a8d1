// y = a*x + y over a large vector; inputs are staged through pinned host buffers.
#include <cuda_runtime.h>
#include <cstring>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, float* y) {
    size_t bytes = (size_t)n * sizeof(float);
    float *h_x, *h_y;
    cudaMallocHost(&h_x, bytes);  // expect: HST-02
    cudaMallocHost((void**)&h_y, bytes);  // expect: HST-02
    memcpy(h_x, x, bytes);
    memcpy(h_y, y, bytes);

    float *d_x, *d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice);
    saxpy<<<(n + 511) / 512, 512>>>(n, a, d_x, d_y);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);
    memcpy(y, h_y, bytes);

    cudaFree(d_x);
    cudaFree(d_y);
    cudaFreeHost(h_x);
    cudaFreeHost(h_y);
}
