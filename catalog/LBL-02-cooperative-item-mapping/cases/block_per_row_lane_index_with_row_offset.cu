// Case: a block per row that the block reduces, where the lane's element index adds the row's
// offset in a local (idx = offset + c) before the access, versus a block per row that only
// copies the row's elements (no partials: a 2-D decomposition).
__global__ void row_sum_sq(const float* in, float* out, int cols) {
    __shared__ float part[256];
    const int offset = blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {  // expect: LBL-02
        const int idx = offset + c;
        s += in[idx] * in[idx];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}
__global__ void row_scale(const float* in, float* out, float a, int cols) {
    const int offset = blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {  // ok: LBL-02
        const int idx = offset + c;
        out[idx] = a * in[idx];
    }
}
extern "C" void solution_compute(const float* in, float* out, float* scaled, int rows, int cols) {
    row_sum_sq<<<rows, 256>>>(in, out, cols);
    row_scale<<<rows, 256>>>(in, scaled, 2.0f, cols);
}
