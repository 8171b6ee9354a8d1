// Case: a block per row whose threads stride by the launch's block extent written as a name
// (`i += WARP_SIZE` with `dim3 block(WARP_SIZE, 1, 1)`), the row taken through a cast
// (`x += int64_t(blockIdx.x) * ncols`).
#include "common.cuh"  // not present: WARP_SIZE, warp_reduce_max

__global__ void row_max(const float* x, float* dst, int ncols) {
    x += int64_t(blockIdx.x) * ncols;
    float m = -1e30f;
    for (int i = threadIdx.x; i < ncols; i += WARP_SIZE) m = fmaxf(m, x[i]);
    m = warp_reduce_max(m);
    if (threadIdx.x == 0) dst[blockIdx.x] = m;
}

extern "C" void solution_compute(const float* x, float* dst, int nrows, int ncols) {
    const dim3 block(WARP_SIZE, 1, 1);
    const dim3 grid(nrows, 1, 1);
    row_max<<<grid, block>>>(x, dst, ncols);  // expect: PAR-10
}
