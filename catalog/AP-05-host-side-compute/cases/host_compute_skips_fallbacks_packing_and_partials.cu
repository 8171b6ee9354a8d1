// Case: host compute skips fallbacks packing and partials.
// ok: AP-05
#include <cuda_runtime.h>
__global__ void scale(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 2.0f * a[i];
}
extern "C" void solution_compute(int n, const float* xy, float* out, float* d_a, float* d_b) {
    if (n < 1024) {
        for (int i = 0; i < n; ++i) out[i] = 2.0f * xy[2 * i];
        return;
    }
    float* h = new float[n];
    for (int i = 0; i < n; ++i) h[i] = xy[2 * i];
    int blocks = (n + 255) / 256;
    float part[4096];
    float total = 0.0f;
    for (int b = 0; b < blocks; ++b) total += part[b];
    scale<<<blocks, 256>>>(d_a, d_b, n);
    out[0] = total;
    delete[] h;
}
