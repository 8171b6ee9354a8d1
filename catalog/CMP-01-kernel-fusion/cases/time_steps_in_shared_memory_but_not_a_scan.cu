// Case: time steps in shared memory but not a scan.
#define B 256
__global__ void steps(const float* in, float* out) {  // expect: CMP-01
    __shared__ float s[2][B + 2];
    int l = threadIdx.x + 1, g = blockIdx.x * B + threadIdx.x;
    s[0][l] = in[g];
    __syncthreads();
    for (int t = 0; t < 4; ++t) {
        s[(t + 1) & 1][l] = 0.25f * (s[t & 1][l - 1] + 2.0f * s[t & 1][l] + s[t & 1][l + 1]);
        __syncthreads();
    }
    out[g] = s[0][l];
}
__global__ void scan(const float* in, float* out) {
    __shared__ float t[2][B];
    int p = 0;
    t[0][threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    for (int off = 1; off < B; off <<= 1) {
        t[1 - p][threadIdx.x] = t[p][threadIdx.x] + (threadIdx.x >= off ? t[p][threadIdx.x - off] : 0.0f);
        p = 1 - p;
        __syncthreads();
    }
    out[threadIdx.x] = t[p][threadIdx.x];
}
extern "C" void solution_compute(float* a, float* b, int n) {
steps<<<1, B>>>(a, b);
scan<<<1, B>>>(a, b);
}
