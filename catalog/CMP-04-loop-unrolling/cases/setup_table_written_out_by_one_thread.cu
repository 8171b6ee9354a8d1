// Case: thread 0 writes a table of segment starts out statement by statement, once per block:
// set-up, not a hot loop written out. Each thread's four accumulations, one per offset, are a
// loop unrolled by hand.
__global__ void segments(const float* __restrict__ x, float* __restrict__ y, int n, int m) {
    __shared__ int start[8];
    if (threadIdx.x == 0) {
        start[0] = 0;
        start[1] = m / 8;
        start[2] = 2 * m / 8;  // ok: CMP-04
        start[3] = 3 * m / 8;
        start[4] = 4 * m / 8;
        start[5] = 5 * m / 8;
        start[6] = 6 * m / 8;
        start[7] = 7 * m / 8;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 >= n) return;
    float s = 0.0f;
    s += x[4 * i + 0] * start[(i + 0) % 8];  // expect: CMP-04
    s += x[4 * i + 1] * start[(i + 1) % 8];
    s += x[4 * i + 2] * start[(i + 2) % 8];
    s += x[4 * i + 3] * start[(i + 3) % 8];
    y[i] = s;
}

extern "C" void solution_compute(const float* x, float* y, int n, int m) {
    segments<<<(n / 4 + 255) / 256, 256>>>(x, y, n, m);
}
