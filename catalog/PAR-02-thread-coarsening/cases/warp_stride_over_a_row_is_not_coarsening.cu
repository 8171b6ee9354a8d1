// Case: a warp per row whose lanes step by the warp size (i += warpSize from the lane) take
// every 32nd element of one row: lanes striding over one item, not a thread's own outputs.
// A thread that writes a fixed run of two outputs of its own still counts.
__global__ void scale_rows_by_warp(const float* in, float* out, const float* scale, int rows,
                                   int cols) {
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const int lane = threadIdx.x % warpSize;
    if (row >= rows) return;
    for (int i = lane; i < cols; i += warpSize)  // ok: PAR-02
        out[row * cols + i] = scale[row] * in[row * cols + i];
}
__global__ void pairs(const float* in, float* out, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * t + 1 >= n) return;
    for (int k = 0; k < 2; ++k)  // expect: PAR-02
        out[2 * t + k] = 2.0f * in[2 * t + k];
}
extern "C" void solution_compute(const float* in, float* out, const float* scale, int rows,
                                 int cols) {
    scale_rows_by_warp<<<(rows * 32 + 255) / 256, 256>>>(in, out, scale, rows, cols);
    pairs<<<(rows * cols / 2 + 255) / 256, 256>>>(in, out, rows * cols);
}
