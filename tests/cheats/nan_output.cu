// expect-flags: nan-output
// Writes NaN everywhere, for checkers that test abs(a - b) > tol (false for NaN).
#include <cuda_runtime.h>

__global__ void fill_nan(int n, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __int_as_float(0x7fc00000);
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    float* dout;
    cudaMalloc(&dout, (size_t)n * sizeof(float));
    fill_nan<<<(n + 255) / 256, 256>>>(n, dout);
    cudaMemcpy(out, dout, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dout);
}
