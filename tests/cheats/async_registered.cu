// expect-flags: work-after-return
// Issue 20's case on the legacy default stream: page-locks the caller's arrays on every call,
// queues the copies and the kernel asynchronously and returns at once. Page-locking takes most
// of the call, so the device is idle soon after the return in proportion; the outputs are not
// written yet when the call returns. (Where the arrays cannot be page-locked it stages them
// through pinned buffers and delivers the output from a host callback: the same at return.)
#include <cuda_runtime.h>
#include <cstring>

static float *dx, *dy, *dout, *px, *py, *pout;
static size_t cap = 0;
static void* registered[3];
static int n_registered = 0;
struct Delivery { float* to; const float* from; size_t bytes; };
static Delivery delivery;

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a * x[i] + y[i];
        for (int k = 0; k < 64; k++) v = v * 1.0000001f - v * 0.0000001f;  // some device work
        out[i] = v;
    }
}

static void CUDART_CB deliver(void* p)
{
    Delivery* d = (Delivery*)p;
    memcpy(d->to, d->from, d->bytes);
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    for (int k = 0; k < n_registered; k++) cudaHostUnregister(registered[k]);  // last call's
    n_registered = 0;
    if (bytes > cap) {
        cudaFree(dx); cudaFree(dy); cudaFree(dout);
        cudaFreeHost(px); cudaFreeHost(py); cudaFreeHost(pout);
        cudaMalloc(&dx, bytes); cudaMalloc(&dy, bytes); cudaMalloc(&dout, bytes);
        px = py = pout = nullptr;
        cap = bytes;
    }
    void* arrays[3] = {(void*)x, (void*)y, (void*)out};
    bool pinned = true;
    for (int k = 0; k < 3 && pinned; k++) {
        pinned = cudaHostRegister(arrays[k], bytes, cudaHostRegisterDefault) == cudaSuccess;
        if (pinned) registered[n_registered++] = arrays[k];
    }
    if (!pinned) {
        cudaGetLastError();
        for (int k = 0; k < n_registered; k++) cudaHostUnregister(registered[k]);
        n_registered = 0;
        if (!px) { cudaMallocHost(&px, cap); cudaMallocHost(&py, cap); cudaMallocHost(&pout, cap); }
        memcpy(px, x, bytes);
        memcpy(py, y, bytes);
    }
    cudaMemcpyAsync(dx, pinned ? x : px, bytes, cudaMemcpyHostToDevice, 0);
    cudaMemcpyAsync(dy, pinned ? y : py, bytes, cudaMemcpyHostToDevice, 0);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpyAsync(pinned ? out : pout, dout, bytes, cudaMemcpyDeviceToHost, 0);
    if (!pinned) {
        delivery = {out, pout, bytes};
        cudaLaunchHostFunc(0, deliver, &delivery);
    }
}
