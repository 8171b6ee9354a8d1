// Case: pragmas and manual unroll.
__global__ void k(const float* x, float* y, int n) {
    float s = 0.0f;
#pragma unroll // a trailing comment  // expect: CMP-04
    for (int i = 0; i < 8; ++i) s += x[i];
#pragma unroll 1
    for (int i = 0; i < n; ++i) s += x[i];
    #pragma unroll 4  // expect: CMP-04
    for (int i = 0; i < n; ++i) s += x[i];
    for (int i = 0; i + 3 < n; i += 4) s += x[i] + x[i + 1] + x[i + 2] + x[i + 3];  // expect: CMP-04
    y[0] = s;
}
__global__ void dead(float* y) {
#pragma unroll
    for (int i = 0; i < 4; ++i) y[i] = 0.0f;
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 1>>>(a, b, n);
}
