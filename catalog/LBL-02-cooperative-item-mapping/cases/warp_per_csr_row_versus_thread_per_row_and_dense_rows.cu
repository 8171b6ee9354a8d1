// Case: warp per csr row versus thread per row and dense rows.
__global__ void vec(const int* rp, const float* v, float* y, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    float s = 0;
    for (int j = rp[row] + lane; j < rp[row + 1]; j += 32) s += v[j];  // expect: LBL-02
    if (lane == 0) y[row] = s;
}
__global__ void scalar(const int* rp, const float* v, float* y, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0;
    for (int j = rp[row]; j < rp[row + 1]; ++j) s += v[j];
    y[row] = s;
}
__global__ void dense(const float* a, float* y, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    float s = 0;
    for (int c = lane; c < cols; c += 32) s += a[row * cols + c];  // expect: LBL-02
    if (lane == 0) y[row] = s;
}
extern "C" void solution_compute(const int* rp, const float* v, float* y, int rows) {
    vec<<<rows / 8, 256>>>(rp, v, y, rows);
    scalar<<<rows / 256, 256>>>(rp, v, y, rows);
    dense<<<rows / 8, 256>>>(v, y, rows);
}
