// Case: padding and swizzling spelled through names. A flat tile whose row stride is the named
// constant LD = TILE + 1, read down a column by the thread index, is padded; an XOR swizzle
// kept in a local (sw = x ^ y) and used as the column is a swizzled index. A flat tile with the
// plain stride TILE is neither.
#include <cuda_runtime.h>
#define TILE 32
constexpr int LD = TILE + 1;

__global__ void transpose_padded(const float* a, float* b, int n) {
    __shared__ float s[TILE * LD];  // expect: MEM-08
    int x = threadIdx.x, y = threadIdx.y;
    s[y * LD + x] = a[(blockIdx.y * TILE + y) * n + blockIdx.x * TILE + x];
    __syncthreads();
    b[(blockIdx.x * TILE + y) * n + blockIdx.y * TILE + x] = s[x * LD + y];
}

__global__ void transpose_swizzled(const float* a, float* b, int n) {
    __shared__ float s[TILE * TILE];
    int x = threadIdx.x, y = threadIdx.y;
    int sw = x ^ y;
    s[y * TILE + sw] = a[(blockIdx.y * TILE + y) * n + blockIdx.x * TILE + x];  // expect: MEM-08
    __syncthreads();
    int rsw = y ^ x;
    b[(blockIdx.x * TILE + y) * n + blockIdx.y * TILE + x] = s[x * TILE + rsw];  // expect: MEM-08
}

__global__ void transpose_plain(const float* a, float* b, int n) {
    __shared__ float s[TILE * TILE];  // ok: MEM-08
    int x = threadIdx.x, y = threadIdx.y;
    s[y * TILE + x] = a[(blockIdx.y * TILE + y) * n + blockIdx.x * TILE + x];
    __syncthreads();
    b[(blockIdx.x * TILE + y) * n + blockIdx.y * TILE + x] = s[x * TILE + y];
}

void solution_compute(const float* a, float* b, int n) {
    dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
    transpose_padded<<<grid, block>>>(a, b, n);
    transpose_swizzled<<<grid, block>>>(a, b, n);
    transpose_plain<<<grid, block>>>(a, b, n);
}
