#include <cuda_runtime.h>

#define BLOCK 256

// Stream compaction of non-zero values: a per-block inclusive scan of the keep
// flags (Hillis-Steele in shared memory) gives each kept element its slot; the
// block's base offset comes from a global counter.
__global__ void compact_nonzero(const float* in, float* out, int* out_count, int n) {
    __shared__ int scan[BLOCK];
    __shared__ int base;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int keep = (i < n && in[i] != 0.0f) ? 1 : 0;
    scan[threadIdx.x] = keep;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset <<= 1) {  // expect: PAR-07
        int add = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0;
        __syncthreads();
        scan[threadIdx.x] += add;
        __syncthreads();
    }
    if (threadIdx.x == BLOCK - 1) base = atomicAdd(out_count, scan[BLOCK - 1]);
    __syncthreads();
    if (keep) out[base + scan[threadIdx.x] - 1] = in[i];
}

extern "C" void solution_compute(int n, const float* in, float* out, int* out_count) {
    float *din, *dout;
    int* dcount;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMalloc(&dcount, sizeof(int));
    cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dcount, 0, sizeof(int));
    compact_nonzero<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, dcount, n);
    cudaMemcpy(out_count, dcount, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(out, dout, *out_count * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dcount);
}
