// Case: two level reduction and thread private passes are not fusion.
// ok: CMP-01
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float part[32];
    float v = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v += a[i] * b[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float w = part[threadIdx.x];
        for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
        if (threadIdx.x == 0) *out = w;
    }
}
__global__ void rownorm(const float* x, float* y, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) s += x[r * cols + j] * x[r * cols + j];
    for (int j = 0; j < cols; ++j) y[r * cols + j] = x[r * cols + j] / s;
}
extern "C" void solution_compute(float* a, float* b, int n) {
dot<<<1, 256>>>(a, a, b, n);
rownorm<<<1, 32>>>(a, b, n);
}
