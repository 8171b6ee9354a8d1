#include <cuda_runtime.h>

#define BUCKETS 1024

// Counts keys per bucket, turns the counts into bucket start offsets with a
// work-efficient (Blelloch) exclusive scan in one block, then scatters keys
// into their buckets.
__global__ void count_keys(const int* keys, int n, int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i] % BUCKETS], 1);
}

__global__ void blelloch_offsets(const int* counts, int* offsets) {
    __shared__ int t[BUCKETS];
    int i = threadIdx.x;
    t[2 * i] = counts[2 * i];
    t[2 * i + 1] = counts[2 * i + 1];
    int offset = 1;
    for (int d = BUCKETS >> 1; d > 0; d >>= 1) {  // expect: PAR-07
        __syncthreads();
        if (i < d) t[offset * (2 * i + 2) - 1] += t[offset * (2 * i + 1) - 1];
        offset <<= 1;
    }
    if (i == 0) t[BUCKETS - 1] = 0;
    for (int d = 1; d < BUCKETS; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (i < d) {
            int ai = offset * (2 * i + 1) - 1, bi = offset * (2 * i + 2) - 1;
            int v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    __syncthreads();
    offsets[2 * i] = t[2 * i];
    offsets[2 * i + 1] = t[2 * i + 1];
}

__global__ void scatter_keys(const int* keys, int n, int* cursor, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[atomicAdd(&cursor[keys[i] % BUCKETS], 1)] = keys[i];
}

extern "C" void solution_compute(int n, const int* keys, int* bucketed) {
    int *dk, *dc, *doff, *dout;
    cudaMalloc(&dk, n * sizeof(int));
    cudaMalloc(&dc, BUCKETS * sizeof(int));
    cudaMalloc(&doff, BUCKETS * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(dk, keys, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, BUCKETS * sizeof(int));
    count_keys<<<(n + 255) / 256, 256>>>(dk, n, dc);
    blelloch_offsets<<<1, BUCKETS / 2>>>(dc, doff);
    scatter_keys<<<(n + 255) / 256, 256>>>(dk, n, doff, dout);
    cudaMemcpy(bucketed, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dk);
    cudaFree(dc);
    cudaFree(doff);
    cudaFree(dout);
}
