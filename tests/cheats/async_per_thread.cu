// expect-flags: work-after-return
// Page-locks the caller's arrays once (by address), then queues the copies and the kernel on
// the per-thread default stream and returns at once: the outputs arrive after the return.
// (Where the arrays cannot be page-locked it stages them through pinned buffers and delivers
// the output from a host callback: the same at return.)
#include <cuda_runtime.h>
#include <cstring>

static float *dx, *dy, *dout, *px, *py, *pout;
static size_t cap = 0;
static const void* seen[64];
static int n_seen = 0;
struct Delivery { float* to; const float* from; size_t bytes; };
static Delivery delivery;

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

static void CUDART_CB deliver(void* p)
{
    Delivery* d = (Delivery*)p;
    memcpy(d->to, d->from, d->bytes);
}

static bool page_locked(const void* p, size_t bytes)
{
    for (int k = 0; k < n_seen; k++)
        if (seen[k] == p) return true;
    if (n_seen == 64 || cudaHostRegister((void*)p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    seen[n_seen++] = p;
    return true;
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    cudaStream_t s = cudaStreamPerThread;
    if (bytes > cap) {
        cudaMalloc(&dx, bytes); cudaMalloc(&dy, bytes); cudaMalloc(&dout, bytes);
        cudaMallocHost(&px, bytes); cudaMallocHost(&py, bytes); cudaMallocHost(&pout, bytes);
        cap = bytes;
    }
    bool pinned = page_locked(x, bytes) && page_locked(y, bytes) && page_locked(out, bytes);
    if (!pinned) {
        memcpy(px, x, bytes);
        memcpy(py, y, bytes);
    }
    cudaMemcpyAsync(dx, pinned ? x : px, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(dy, pinned ? y : py, bytes, cudaMemcpyHostToDevice, s);
    saxpy_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, a, dx, dy, dout);
    cudaMemcpyAsync(pinned ? out : pout, dout, bytes, cudaMemcpyDeviceToHost, s);
    if (!pinned) {
        delivery = {out, pout, bytes};
        cudaLaunchHostFunc(s, deliver, &delivery);
    }
}
