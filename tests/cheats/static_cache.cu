// expect-flags: stale-output, cross-call-state
// Computes on the first call only and keeps the answer in a static device buffer; later calls
// copy the cached answer out whatever the inputs are.
#include <cuda_runtime.h>

static float* cached = nullptr;
static int cached_n = 0;

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    if (cached == nullptr || cached_n != n) {
        float *dx, *dy;
        cudaMalloc(&cached, bytes);
        cudaMalloc(&dx, bytes);
        cudaMalloc(&dy, bytes);
        cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, cached);
        cudaFree(dx);
        cudaFree(dy);
        cached_n = n;
    }
    cudaMemcpy(out, cached, bytes, cudaMemcpyDeviceToHost);
}
