// Case: thread 0 of each block finds the smallest and largest of a short list of per-block
// sizes into a shared scalar, and the block then bins a different array with it: the scalar is
// a parameter read from other data, not a first pass over the data the loop reads again. A
// block that finds the largest of its own values and then rescales those values fuses the two
// passes.
__global__ void bin_boxes(const float2* __restrict__ size_range, const float* __restrict__ box,  // ok: CMP-01
                          int* __restrict__ bins, int num_ranges, int n) {
    __shared__ float2 range;
    if (threadIdx.x == 0) {
        range = size_range[0];
        for (int i = 1; i < num_ranges; i++) {
            float2 r = size_range[i];
            range.x = fminf(range.x, r.x);
            range.y = fmaxf(range.y, r.y);
        }
    }
    __syncthreads();
    float scale = 20.0f / (range.y - range.x);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        bins[i] = (int)((box[i] - range.x) * scale);
}

__global__ void rescale_rows(const float* __restrict__ x, float* __restrict__ y,  // expect: CMP-01
                             int cols) {
    __shared__ float top;
    const float* row = x + (size_t)blockIdx.x * cols;
    if (threadIdx.x == 0) {
        top = row[0];
        for (int j = 1; j < cols; j++)
            top = fmaxf(top, row[j]);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        y[(size_t)blockIdx.x * cols + j] = row[j] / top;
}

extern "C" void solution_compute(const float2* size_range, const float* box, int* bins,
                                 int num_ranges, int n, const float* x, float* y, int rows,
                                 int cols) {
    bin_boxes<<<64, 256>>>(size_range, box, bins, num_ranges, n);
    rescale_rows<<<rows, 256>>>(x, y, cols);
}
