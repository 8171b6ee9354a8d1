#include <cuda_runtime.h>

// Block size as a template parameter: the tree loop is unrolled per instantiation and the host
// picks the instantiation that matches the problem size.
template <int BLOCK> // expect: CMP-07
__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" void solution_compute(const float* in, float* partial, int n) {
    float *din, *dout;
    cudaMalloc(&din, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * (n + 63) / 64);
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    int blocks;
    if (n >= (1 << 20)) {
        blocks = (n + 255) / 256;
        block_sum<256><<<blocks, 256>>>(din, dout, n);
    } else if (n >= 4096) {
        blocks = (n + 127) / 128;
        block_sum<128><<<blocks, 128>>>(din, dout, n);
    } else {
        blocks = (n + 63) / 64;
        block_sum<64><<<blocks, 64>>>(din, dout, n);
    }
    cudaMemcpy(partial, dout, sizeof(float) * blocks, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dout);
}
