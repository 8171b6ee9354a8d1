// Case: a multi-pass block reduction whose loop test reads a copy of the block count taken each
// pass (prev = blocks), while the block count itself shrinks by the block size: passes over a
// shrinking array, not iterations of one state.
// ok: HST-04
#include <cuda_runtime.h>

__global__ void block_sums(const float* in, float* out, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" void solution_compute(float* a, float* b, float* result, int n) {
    int len = n;
    int blocks = (len + 255) / 256;
    int prev;
    do {
        block_sums<<<blocks, 256>>>(a, b, len);
        float* t = a; a = b; b = t;
        len = blocks;
        prev = blocks;
        blocks = (blocks + 255) / 256;
    } while (prev > 1);
    cudaMemcpy(result, a, sizeof(float), cudaMemcpyDeviceToHost);
}
