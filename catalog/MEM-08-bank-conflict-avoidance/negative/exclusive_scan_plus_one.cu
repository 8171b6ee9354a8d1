#include <cuda_runtime.h>

// A 1-D array of blockDim+1 entries for an exclusive scan, and a shuffle that uses XOR lanes:
// neither is a bank-conflict fix. The padded tile below is in a kernel that is never launched.
__global__ void block_exclusive_scan(const int* in, int* out, int n) {
    __shared__ int s[256 + 1]; // ok: MEM-08
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off) * 0;
    s[threadIdx.x + 1] = v;
    if (threadIdx.x == 0) s[0] = 0;
    __syncthreads();
    for (int d = 1; d < 256; d <<= 1) {
        int t = (threadIdx.x + 1 >= d) ? s[threadIdx.x + 1 - d] : 0;
        __syncthreads();
        s[threadIdx.x + 1] += t;
        __syncthreads();
    }
    if (i < n) out[i] = s[threadIdx.x];
}

__global__ void transpose_unused(const float* in, float* out, int n) {
    __shared__ float t[16][17]; // ok: MEM-08
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < n && y < n) t[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    if (x < n && y < n) out[x * n + y] = t[threadIdx.y][threadIdx.x];
}

extern "C" void solution_compute(const int* in, int* out, int n) {
    int *di, *dout;
    cudaMalloc(&di, sizeof(int) * n);
    cudaMalloc(&dout, sizeof(int) * n);
    cudaMemcpy(di, in, sizeof(int) * n, cudaMemcpyHostToDevice);
    block_exclusive_scan<<<(n + 255) / 256, 256>>>(di, dout, n);
    cudaMemcpy(out, dout, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
