// Case: serial tail after deeper parallel work is not the heavy work.
// ok: AP-01
#include <cuda_runtime.h>
__global__ void pairs(const float* x, int n, float* row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += fabsf(x[i] - x[j]);
    row[i] = s;
}
__global__ void best(const float* row, int n, float* out) {
    float b = row[0];
    for (int i = 1; i < n; ++i) b = fminf(b, row[i]);
    *out = b;
}
extern "C" void solution_compute(int n, const float* d_x, float* d_row, float* d_out) {
    pairs<<<(n + 255) / 256, 256>>>(d_x, n, d_row);
    best<<<1, 1>>>(d_row, n, d_out);
}
