// Case: a warp per row whose lanes step through the row by a local named once
// (const int stride = warpSize * 2; c += stride), each lane taking two neighbours per step.
// The step's name hid the warp size.
__global__ void row_sums(const float* in, float* out, int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int lane = threadIdx.x % warpSize;
  if (row >= rows) return;
  const int stride = warpSize * 2;
  float s = 0.0f;
  for (int c = 2 * lane; c < cols; c += stride) {  // expect: LBL-02
    s += in[row * cols + c];
    if (c + 1 < cols) s += in[row * cols + c + 1];
  }
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) out[row] = s;
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols) {
  row_sums<<<(rows * 32 + 255) / 256, 256>>>(in, out, rows, cols);
}
