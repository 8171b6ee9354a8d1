// expect-failure: wrong
// Honest but wrong, as issue 20's histogram: stages its tile in dynamic shared memory and asks
// for more than any block may have (300 KB), so every launch fails; the error is never checked
// and the zeroed device output is copied back. The harness must name the failed launch.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr size_t TILE_BYTES = 300 * 1024;

__global__ void saxpy_staged(int n, float a, const float* x, const float* y, float* out)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? y[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = a * x[i] + tile[threadIdx.x];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dx, *dy, *dout;
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemset(dout, 0, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    saxpy_staged<<<(n + THREADS - 1) / THREADS, THREADS, TILE_BYTES>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
}
