// Case: stage index must vary.
__global__ void k(const float* in, float* out, int tiles) {
    __shared__ float buf[2][128];  // expect: MEM-09
    __shared__ float parts[2][128];
    int cur = 0;
    buf[0][threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        int nxt = cur ^ 1;
        if (t + 1 < tiles) buf[nxt][threadIdx.x] = in[(t + 1) * 128 + threadIdx.x];
        parts[0][threadIdx.x] = in[t];
        parts[1][threadIdx.x] = in[t + 1];
        for (int j = 0; j < 128; ++j) acc += buf[cur][j] + parts[1][j];
        __syncthreads();
        cur = nxt;
    }
    out[threadIdx.x] = acc;
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 128>>>(a, b, n);
}
