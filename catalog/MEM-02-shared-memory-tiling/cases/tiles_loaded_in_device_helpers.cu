// Case: the shared tiles are declared in the kernel but loaded and read inside __device__ helpers
// the kernel passes them to: the tiling is followed through the helpers' parameters.
#include <cuda_runtime.h>
#define T 16
__device__ void load_tile(float (*tile)[T], const float* src, int ld, int row, int col) {
    tile[threadIdx.y][threadIdx.x] = src[(row + threadIdx.y) * ld + col + threadIdx.x];
}
__device__ float dot_tile(float (*a)[T], float (*b)[T]) {
    float s = 0.0f;
    for (int k = 0; k < T; ++k) s += a[threadIdx.y][k] * b[k][threadIdx.x];
    return s;
}
__global__ void mm(const float* A, const float* B, float* C, int n) {
    __shared__ float sa[T][T];  // expect: MEM-02
    __shared__ float sb[T][T];  // expect: MEM-02
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += T) {
        load_tile(sa, A, n, blockIdx.y * T, t);
        load_tile(sb, B, n, t, blockIdx.x * T);
        __syncthreads();
        acc += dot_tile(sa, sb);
        __syncthreads();
    }
    C[row * n + col] = acc;
}
extern "C" void solution_compute(const float* A, const float* B, float* C, int n) {
    dim3 b(T, T), g(n / T, n / T);
    mm<<<g, b>>>(A, B, C, n);
}
