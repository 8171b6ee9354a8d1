// Per-block histogram in shared memory; each bin is read into a local and added to the global
// histogram once per block, skipping empty bins.
#include <cuda_runtime.h>

__global__ void hist(const int* keys, int n, int bins, unsigned* out) {
    extern __shared__ unsigned local_hist[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local_hist[keys[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        unsigned count = local_hist[b];
        if (count) atomicAdd(&out[b], count);  // expect: PAR-05
    }
}

extern "C" void solution_compute(int n, const int* keys, int bins, unsigned* counts) {
    int* dk;
    unsigned* dc;
    cudaMalloc(&dk, n * sizeof(int));
    cudaMalloc(&dc, bins * sizeof(unsigned));
    cudaMemcpy(dk, keys, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, bins * sizeof(unsigned));
    hist<<<264, 256, bins * sizeof(unsigned)>>>(dk, n, bins, dc);
    cudaMemcpy(counts, dc, bins * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(dk);
    cudaFree(dc);
}
