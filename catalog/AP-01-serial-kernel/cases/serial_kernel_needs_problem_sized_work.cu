// Case: serial kernel needs problem sized work.
// reset writes a scalar; finish walks `blocks` partials, not the problem
#include <cuda_runtime.h>
__global__ void reset(int* c) { *c = 0; }
__global__ void serial_sum(const float* x, int n, float* out) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += x[i];
    *out = s;
}
__global__ void finish(const float* part, int parts, float* out) {
    float s = 0.0f;
    for (int p = 0; p < parts; ++p) s += part[p];
    *out = s;
}
extern "C" void solution_compute(int n, const float* d_x, float* d_out, int* d_c, float* d_p) {
    int blocks = (n + 255) / 256;
    reset<<<1, 1>>>(d_c);
    serial_sum<<<1, 1>>>(d_x, n, d_out);  // expect: AP-01
    finish<<<1, 1>>>(d_p, blocks, d_out);
}
