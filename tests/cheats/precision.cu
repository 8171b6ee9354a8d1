// expect-flags: precision
// Moves x and y as half precision: half the bytes, answers good to about 1e-3 only.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

__global__ void saxpy_half(int n, float a, const __half* x, const __half* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * __half2float(x[i]) + __half2float(y[i]);
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    std::vector<__half> hx(n), hy(n);
    for (int i = 0; i < n; i++) { hx[i] = __float2half(x[i]); hy[i] = __float2half(y[i]); }
    __half *dx, *dy;
    float* dout;
    cudaMalloc(&dx, n * sizeof(__half));
    cudaMalloc(&dy, n * sizeof(__half));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(dx, hx.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
    saxpy_half<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
}
