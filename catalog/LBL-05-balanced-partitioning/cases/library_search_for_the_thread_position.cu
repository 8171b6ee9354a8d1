// Case: equal work per thread over irregular rows through a library search. Each thread takes
// every blockDim.x-th edge of the block's range and finds the edge's row with
// thrust::upper_bound over the row offsets, searching for its own position: edge-balanced
// partitioning. Searching the bins for a loaded value (searchsorted) balances nothing.
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

__global__ void edge_rows(const int* offsets, int rows, int* row_of_edge, int edges) {
    int per_block = (edges + gridDim.x - 1) / gridDim.x;
    int begin = blockIdx.x * per_block;
    int end = min(begin + per_block, edges);
    for (int e = begin + threadIdx.x; e < end; e += blockDim.x) {
        const int* it = thrust::upper_bound(thrust::seq, offsets, offsets + rows + 1, e);  // expect: LBL-05
        row_of_edge[e] = (int)(it - offsets) - 1;
    }
}

__global__ void bin_values(const float* x, int n, const float* bins, int nb, int* bin) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float* it = thrust::upper_bound(thrust::seq, bins, bins + nb, x[i]);  // ok: LBL-05
        bin[i] = (int)(it - bins);
    }
}

extern "C" void solution_compute(const int* offsets, int rows, int* row_of_edge, int edges,
                                 const float* x, int n, const float* bins, int nb, int* bin) {
    edge_rows<<<120, 256>>>(offsets, rows, row_of_edge, edges);
    bin_values<<<(n + 255) / 256, 256>>>(x, n, bins, nb, bin);
    cudaDeviceSynchronize();
}
