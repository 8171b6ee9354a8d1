// Case: a kernel file that instantiates its template explicitly for two tile widths (the launch is
// elsewhere): the explicit instantiations are the file's instantiations, so the specialisation is
// reported and ROWS takes the values 4 and 8 for the loops.
template <int ROWS>  // expect: CMP-07
__global__ void row_block_scale(const float* in, float* out, float s, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    for (int r = 0; r < ROWS; ++r)  // expect: PAR-02
        out[(blockIdx.y * ROWS + r) * cols + c] = s * in[(blockIdx.y * ROWS + r) * cols + c];
}

template __global__ void row_block_scale<4>(const float*, float*, float, int);
template __global__ void row_block_scale<8>(const float*, float*, float, int);
