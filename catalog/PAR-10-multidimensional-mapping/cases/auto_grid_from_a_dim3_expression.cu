// Case: a launch grid held in an auto variable initialised from a dim3 expression is a 2-D
// grid: blockIdx.y picks the column tile of each row.
__global__ void scale_rows(const float* in, const float* row_scale, float* out, int rows,
                           int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y;
    if (row < rows && col < cols)
        out[col * rows + row] = row_scale[row] * in[col * rows + row];
}

extern "C" void solution_compute(const float* in, const float* row_scale, float* out,
                                 int rows, int cols) {
    const auto grid = dim3((rows + 127) / 128, cols);  // expect: PAR-10
    scale_rows<<<grid, 128>>>(in, row_scale, out, rows, cols);  // expect: PAR-10
}
