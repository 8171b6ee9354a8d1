// Case: groups of four lanes per CSR row cut from the global thread id (row = gid / 4,
// lane = gid % 4): with a block a multiple of four these are the block's own groups, and the
// lanes stride over the row's entries by four.
__global__ void expand_rows(const int* row_ptr, const float* row_val, float* out, int rows) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = gid / 4;
    int lane = gid % 4;
    if (row >= rows) return;
    float v = row_val[row];
    for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 4)  // expect: LBL-02
        out[k] = v;
}

extern "C" void solution_compute(const int* row_ptr, const float* row_val, float* out,
                                 int rows) {
    expand_rows<<<(4 * rows + 127) / 128, 128>>>(row_ptr, row_val, out, rows);
}
