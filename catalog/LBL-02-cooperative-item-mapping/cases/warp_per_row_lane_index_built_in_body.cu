// Case: a warp per matrix row (block (32, 4): threadIdx.y picks the row, threadIdx.x is the
// lane) whose loop counts chunks and builds the lane's column in the body
// (k = w * WARP_SIZE + lane), as short-row sgemv kernels write it.
#define WARP_SIZE 32

__global__ void sgemv(const float* a, const float* x, float* y, int M, int K) {
    int lane = threadIdx.x % WARP_SIZE;
    int m = blockIdx.x * blockDim.y + threadIdx.y;
    if (m >= M) return;
    float sum = 0.0f;
    int chunks = (K + WARP_SIZE - 1) / WARP_SIZE;
    for (int w = 0; w < chunks; ++w) {  // expect: LBL-02
        int k = w * WARP_SIZE + lane;
        if (k < K) sum += a[m * K + k] * x[k];
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffff, sum, o);
    if (lane == 0) y[m] = sum;
}

extern "C" void solution_compute(const float* a, const float* x, float* y, int M, int K) {
    sgemv<<<(M + 3) / 4, dim3(32, 4)>>>(a, x, y, M, K);
}
