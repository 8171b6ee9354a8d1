// Case: tiles reported with bytes and reduction workspace is not.
#define T 16
__global__ void mm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T];  // expect: MEM-02
    __shared__ float Bs[T][T];  // expect: MEM-02
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / T; ++t) {
        As[threadIdx.y][threadIdx.x] = A[r * n + t * T + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = acc;
}
__global__ void red(const float* in, float* out, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
extern "C" void solution_compute(float* a, float* b, int n) {
mm<<<1, 256>>>(a, a, b, n);
red<<<1, 256>>>(a, b, n);
}
