// Case: a stencil that names its arrays through function-like macros, as classic benchmark code
// does (#define IN(y, x) in[...]): the accesses are read where the macros are used, so the shared
// tile and its global loads are seen.
#include <cuda_runtime.h>

#define B 16
#define IN(y, x) in[(y) * width + (x)]
#define OUT(y, x) out[(y) * width + (x)]
#define TILE(y, x) tile[(y) + 1][(x) + 1]

__global__ void blur(const float* in, float* out, int width, int height) {
    __shared__ float tile[B + 2][B + 2];  // expect: MEM-02
    int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    if (x >= width || y >= height) return;
    TILE(threadIdx.y, threadIdx.x) = IN(y, x);
    if (threadIdx.x == 0 && x > 0) TILE(threadIdx.y, -1) = IN(y, x - 1);
    if (threadIdx.x == B - 1 && x + 1 < width) TILE(threadIdx.y, B) = IN(y, x + 1);
    __syncthreads();
    OUT(y, x) = (TILE(threadIdx.y, threadIdx.x - 1) + TILE(threadIdx.y, threadIdx.x) +
                 TILE(threadIdx.y, threadIdx.x + 1)) / 3.0f;
}

extern "C" void solution_compute(const float* in, float* out, int width, int height) {
    dim3 block(B, B), grid((width + B - 1) / B, (height + B - 1) / B);
    blur<<<grid, block>>>(in, out, width, height);
    cudaDeviceSynchronize();
}
