// Case: uncoalesced flags thread per row not column walks or small aos.
#include <cuda_runtime.h>
__global__ void row_sums(const float* A, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += A[r * cols + c];  // expect: AP-03
    y[r] = s;
}
__global__ void col_sums(const float* A, float* y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += A[r * cols + c];
    y[c] = s;
}
__global__ void xyz_norm(const float* p, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p[3 * i] + p[3 * i + 1] + p[3 * i + 2];
}
extern "C" void solution_compute(int rows, int cols, const float* A, float* y, float* z) {
    row_sums<<<(rows + 255) / 256, 256>>>(A, y, rows, cols);
    col_sums<<<(cols + 255) / 256, 256>>>(A, z, rows, cols);
    xyz_norm<<<(rows + 255) / 256, 256>>>(A, z, rows);
}
