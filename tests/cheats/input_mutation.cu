// expect-flags: input-mutation
// Correct outputs, but uses the const input x as scratch and leaves it changed.
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    float *dx, *dy, *dout;
    size_t bytes = (size_t)n * sizeof(float);
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy((float*)x, dout, bytes, cudaMemcpyDeviceToHost);  // scribbles over an input
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
}
