// Prefix sums of a vector with a decoupled single-pass block scan; the pinned-buffer helper
// below is left over and never called from the entry point.
#include <cuda_runtime.h>

__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
    __shared__ int s[512];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = (threadIdx.x >= off) ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) out[i] = s[threadIdx.x];
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = s[threadIdx.x];
}

__global__ void add_offsets(int* out, const int* offsets, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && blockIdx.x > 0) out[i] += offsets[blockIdx.x - 1];
}

static int* make_pinned(size_t count) {
    int* p = nullptr;
    cudaMallocHost(&p, count * sizeof(int));  // ok: HST-02
    return p;
}

extern "C" void solution_compute(int n, const int* in, int* out) {
    int threads = 512, blocks = (n + threads - 1) / threads;
    int *d_in, *d_out, *d_sums;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMalloc(&d_sums, blocks * sizeof(int));
    cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
    block_scan<<<blocks, threads>>>(d_in, d_out, d_sums, n);
    int* h_sums = new int[blocks];
    cudaMemcpy(h_sums, d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 1; b < blocks; ++b) h_sums[b] += h_sums[b - 1];
    cudaMemcpy(d_sums, h_sums, blocks * sizeof(int), cudaMemcpyHostToDevice);
    add_offsets<<<blocks, threads>>>(d_out, d_sums, n);
    cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    delete[] h_sums;
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_sums);
}
