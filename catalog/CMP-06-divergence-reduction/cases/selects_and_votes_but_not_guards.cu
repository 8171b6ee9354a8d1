// Case: selects and votes but not guards.
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.0f;
    float r = v * (v > 0.0f);  // expect: CMP-06
    float z = 0.0f;
    for (int t = 0; t < 8; ++t) {
        bool go = z < 4.0f;
        if (!__any_sync(0xffffffffu, go)) break;  // expect: CMP-06
        z = go ? z * z + v : z;  // expect: CMP-06
        float sgn = (t & 1) ? -1.0f : 1.0f;
        r += sgn;
    }
    if (v < 0.0f) r = 0.0f;
    if (i < n) y[i] = r + z;
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b, n);
}
