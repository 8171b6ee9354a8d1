// expect-flags: work-after-return
// Queues everything on a stream created with cudaStreamNonBlocking, which the legacy default
// stream does not wait for: stages the inputs into pinned buffers, queues the copies, the
// kernel and a host callback that writes the outputs, and returns before any of it has run.
#include <cuda_runtime.h>
#include <cstring>

static float *dx, *dy, *dout, *px, *py, *pout;
static size_t cap = 0;
static cudaStream_t stream = nullptr;
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

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    if (!stream) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (bytes > cap) {
        cudaMalloc(&dx, bytes); cudaMalloc(&dy, bytes); cudaMalloc(&dout, bytes);
        cudaMallocHost(&px, bytes); cudaMallocHost(&py, bytes); cudaMallocHost(&pout, bytes);
        cap = bytes;
    }
    memcpy(px, x, bytes);
    memcpy(py, y, bytes);
    cudaMemcpyAsync(dx, px, bytes, cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(dy, py, bytes, cudaMemcpyHostToDevice, stream);
    saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(n, a, dx, dy, dout);
    cudaMemcpyAsync(pout, dout, bytes, cudaMemcpyDeviceToHost, stream);
    delivery = {out, pout, bytes};
    cudaLaunchHostFunc(stream, deliver, &delivery);
}
