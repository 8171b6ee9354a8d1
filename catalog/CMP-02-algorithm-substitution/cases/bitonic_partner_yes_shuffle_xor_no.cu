// Case: bitonic partner yes shuffle xor no.
__global__ void step(float* d, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;  // expect: CMP-02
    if (p > i && ((d[i] > d[p]) == ((i & k) == 0))) { float t = d[i]; d[i] = d[p]; d[p] = t; }
}
__global__ void wsum(const float* x, float* y) {
    float v = x[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x ^ 1;
    y[threadIdx.x] = v + x[lane];
}
extern "C" void solution_compute(float* a, float* b, int n) {
step<<<1, 32>>>(a, 1, 2);
wsum<<<1, 32>>>(a, b);
}
