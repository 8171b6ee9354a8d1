// expect-flags: stale-output
// Counts calls: computes honestly during what it takes to be the warm-up (first 4 calls), then
// hands back the previous call's answer from a host copy.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>

static int calls = 0;
static float* last = nullptr;

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    if (++calls > 4 && last) {
        memcpy(out, last, bytes);
        return;
    }
    float *dx, *dy, *dout;
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
    free(last);
    last = (float*)malloc(bytes);
    memcpy(last, out, bytes);
}
