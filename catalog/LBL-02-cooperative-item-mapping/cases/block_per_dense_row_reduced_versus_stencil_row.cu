// Case: a block per dense row that the block reduces (row norm) versus a block per stencil row
// and a block per compile-time tile.
__global__ void row_norm(const float* in, float* norms, int cols) {
    __shared__ float part[256];
    const float* x = in + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[c] * x[c];  // expect: LBL-02
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) norms[blockIdx.x] = sqrtf(part[0]);
}
__global__ void stencil_row(const float* u, float* v, int cols) {
    int row = blockIdx.x + 1;
    for (int c = threadIdx.x + 1; c < cols - 1; c += blockDim.x)
        v[row * cols + c] = 0.25f * (u[(row - 1) * cols + c] + u[(row + 1) * cols + c] +
                                     u[row * cols + c - 1] + u[row * cols + c + 1]);
}
__global__ void tile_sum(const float* a, float* out) {
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s += a[blockIdx.x * 1024 + i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 256; ++k) t += part[k];
        out[blockIdx.x] = t;
    }
}
extern "C" void solution_compute(const float* in, float* norms, float* v, float* out, int rows,
                                 int cols) {
    row_norm<<<rows, 256>>>(in, norms, cols);
    stencil_row<<<rows - 2, 256>>>(in, v, cols);
    tile_sum<<<rows * cols / 1024, 256>>>(in, out);
}
