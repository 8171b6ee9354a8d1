// expect-flags: load-time-work
// A constructor run when the library loads allocates a large device pool and runs kernels on
// it, so the timed calls find everything ready.
#include <cuda_runtime.h>

static float* pool = nullptr;
static const size_t POOL_FLOATS = (size_t)3 * 64 * 1024 * 1024;  // 768 MiB

__global__ void touch(float* p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 0.0f;
}

__attribute__((constructor)) static void preload()
{
    cudaMalloc(&pool, POOL_FLOATS * sizeof(float));
    cudaMemset(pool, 0, POOL_FLOATS * sizeof(float));
    touch<<<1024, 256>>>(pool, POOL_FLOATS);
    cudaDeviceSynchronize();
}

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dx = pool, *dy = pool + n, *dout = pool + 2 * (size_t)n;
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
}
