// Case: tree reduction versus scan and bitonic exchange.
__global__ void reduce(const float* x, float* out) {
    __shared__ float s[256];
    s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {  // expect: PAR-04
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
__global__ void scan(int* x) {
    __shared__ int s[256];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    for (int d = 1; d < 256; d <<= 1) {  // expect: PAR-07
        int v = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    x[threadIdx.x] = s[threadIdx.x];
}
__global__ void bitonic(float* x) {
    __shared__ float s[256];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    for (int j = 128; j > 0; j >>= 1) {
        int p = threadIdx.x ^ j;
        if (p > threadIdx.x && s[threadIdx.x] > s[p]) { float t = s[p]; s[p] = s[threadIdx.x]; s[threadIdx.x] = t; }
        __syncthreads();
    }
    x[threadIdx.x] = s[threadIdx.x];
}
extern "C" void solution_compute(float* x, float* out, int* y) {
    reduce<<<4, 256>>>(x, out);
    scan<<<1, 256>>>(y);
    bitonic<<<1, 256>>>(x);
}
