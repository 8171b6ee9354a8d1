#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Row-wise softmax, one warp per row, using a cooperative-groups tile for the
// max and sum reductions and a broadcast of lane 0's value.
__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int row = blockIdx.x * (blockDim.x / 32) + tile.meta_group_rank();
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = tile.thread_rank(); c < cols; c += 32) m = fmaxf(m, xr[c]);
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, tile.shfl_xor(m, off));  // expect: PAR-03
    float s = 0.0f;
    for (int c = tile.thread_rank(); c < cols; c += 32) s += __expf(xr[c] - m);
    for (int off = 16; off > 0; off /= 2) s += tile.shfl_down(s, off);  // expect: PAR-03
    s = tile.shfl(s, 0);  // expect: PAR-03
    for (int c = tile.thread_rank(); c < cols; c += 32) y[(size_t)row * cols + c] = __expf(xr[c] - m) / s;
}

extern "C" void solution_compute(int rows, int cols, const float* x, float* y) {
    float *dx, *dy;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    int warps_per_block = 8;
    softmax_rows<<<(rows + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(dx, dy, rows, cols);
    cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
