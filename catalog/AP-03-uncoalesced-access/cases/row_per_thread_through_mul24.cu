// Case: pre-Fermi index arithmetic through the 24-bit multiply intrinsic: each thread walks its
// own row (in[__mul24(row, cols) + k], row from threadIdx.x), so lanes are cols elements apart.
__global__ void row_sums(const float* in, float* out, int rows, int cols) {
    int row = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (row >= rows) return;
    float acc = 0.0f;
    for (int k = 0; k < cols; ++k) acc += in[__mul24(row, cols) + k];  // expect: AP-03
    out[row] = acc;
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols) {
    row_sums<<<(rows + 255) / 256, 256>>>(in, out, rows, cols);
}
