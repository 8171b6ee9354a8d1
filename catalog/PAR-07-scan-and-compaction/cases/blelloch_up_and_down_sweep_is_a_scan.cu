// Case: blelloch up and down sweep is a scan.
// ok: PAR-04
__global__ void prescan(float* out, const float* in, int n) {
    __shared__ float t[512];
    int i = threadIdx.x, offset = 1;
    t[2 * i] = in[2 * i];
    t[2 * i + 1] = in[2 * i + 1];
    for (int d = n >> 1; d > 0; d >>= 1) {  // expect: PAR-07
        __syncthreads();
        if (i < d) t[offset * (2 * i + 2) - 1] += t[offset * (2 * i + 1) - 1];
        offset *= 2;
    }
    if (i == 0) t[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (i < d) {
            int ai = offset * (2 * i + 1) - 1, bi = offset * (2 * i + 2) - 1;
            float v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    __syncthreads();
    out[2 * i] = t[2 * i];
}
extern "C" void solution_compute(float* o, const float* x, int n) { prescan<<<1, 256>>>(o, x, 512); }
