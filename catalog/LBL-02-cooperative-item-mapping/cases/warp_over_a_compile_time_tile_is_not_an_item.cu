// Case: a warp whose lanes step by 32 over a compile-time tile (a 128-row slab copied into
// shared memory) is not a warp per item; a warp per row of run-time length still is.
#define SLAB 128
__global__ void stage_slab(const float* in, float* out, int cols) {
    __shared__ float slab[SLAB];
    const int lane = threadIdx.x % 32;
    for (int r = lane; r < SLAB; r += 32)  // ok: LBL-02
        slab[r] = in[(blockIdx.x * SLAB + r) * cols];
    __syncwarp();
    if (lane == 0) {
        float s = 0.0f;
        for (int r = 0; r < SLAB; ++r) s += slab[r];
        out[blockIdx.x] = s;
    }
}
__global__ void row_max(const float* in, float* out, int rows, int cols) {
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float m = -1e30f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[row * cols + c]);  // expect: LBL-02
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, off));
    if (lane == 0) out[row] = m;
}
extern "C" void solution_compute(const float* in, float* out, float* maxes, int rows, int cols) {
    stage_slab<<<rows / SLAB, 32>>>(in, out, cols);
    row_max<<<(rows * 32 + 255) / 256, 256>>>(in, maxes, rows, cols);
}
