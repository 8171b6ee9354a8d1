// Case: each block stages its rows' first edges, edge weights (1 / degree) and edge counts in
// shared memory, then its threads stride over all of the block's edges and find each edge's row
// by a binary search over the staged counts. Reading a row's staged values at a position found
// from the data is a lookup inside one pass, not a second stage fused into the kernel.
// ok: CMP-01
#include <cuda_runtime.h>

#define BLOCK 128

// the last k with before[k] <= e
__device__ int row_of(const int* before, int e) {
    int lo = 0, hi = BLOCK;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (before[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

__global__ void expand_edges(const int* row_ptr, const int* cols, int* out_src, int* out_dst,
                             float* out_w, int rows) {
    __shared__ int first[BLOCK];
    __shared__ float weight[BLOCK];
    __shared__ int before[BLOCK + 1];
    int r = blockIdx.x * BLOCK + threadIdx.x;
    int deg = r < rows ? row_ptr[r + 1] - row_ptr[r] : 0;
    first[threadIdx.x] = r < rows ? row_ptr[r] : 0;
    weight[threadIdx.x] = deg > 0 ? 1.0f / deg : 0.0f;
    before[threadIdx.x + 1] = deg;
    if (threadIdx.x == 0) before[0] = 0;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int k = 1; k <= BLOCK; ++k) before[k] += before[k - 1];
    __syncthreads();
    int total = before[BLOCK];
    int base = row_ptr[min(blockIdx.x * BLOCK, rows)];
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int lo = row_of(before, e);
        int edge = first[lo] + e - before[lo];
        out_src[base + e] = blockIdx.x * BLOCK + lo;
        out_dst[base + e] = cols[edge];
        out_w[base + e] = weight[lo];
    }
}

extern "C" void solution_compute(const int* row_ptr, const int* cols, int* out_src, int* out_dst,
                                 float* out_w, int rows) {
    expand_edges<<<(rows + BLOCK - 1) / BLOCK, BLOCK>>>(row_ptr, cols, out_src, out_dst, out_w,
                                                         rows);
    cudaDeviceSynchronize();
}
