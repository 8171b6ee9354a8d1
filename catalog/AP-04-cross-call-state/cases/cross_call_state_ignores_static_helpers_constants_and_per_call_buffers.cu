// Case: cross call state ignores static helpers constants and per call buffers.
// d_keep holds an allocation that is never freed; `initialised` is kept and tested;
// g_calls is written but never read back; d_tmp is freed in every call
#include <cuda_runtime.h>
static const float kW[3] = {0.25f, 0.5f, 0.25f};
static constexpr int kBlock = 256;
static float* d_tmp = nullptr;
static float* d_keep = nullptr;  // expect: AP-04
static int g_calls = 0;
static inline int blocks(int n) { return (n + kBlock - 1) / kBlock; }
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 2.0f; }
extern "C" void solution_compute(int n, float* out) {
    static bool initialised = false;  // expect: AP-04
    if (!initialised) {
        cudaMalloc(&d_keep, n * sizeof(float));
        initialised = true;
    }
    cudaMalloc(&d_tmp, n * sizeof(float));
    k<<<blocks(n), kBlock>>>(d_tmp, n);
    k<<<blocks(n), kBlock>>>(d_keep, n);
    cudaMemcpy(out, d_tmp, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_tmp);
    g_calls++;
}
