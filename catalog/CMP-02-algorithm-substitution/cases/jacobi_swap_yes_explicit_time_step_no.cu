// Case: jacobi swap yes explicit time step no.
#include <utility>
__global__ void jac(const float* u, float* un, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) un[i] = 0.5f * (u[i - 1] + u[i + 1]);
}
__global__ void heat(const float* u, float* un, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) un[i] = u[i] + 0.1f * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
}
extern "C" void solution_compute(float* a, float* b, int n) {
float *p = a, *q = b, *r = a, *s = b;
for (int it = 0; it < n; ++it) {
    jac<<<1, 32>>>(p, q, n);
    std::swap(p, q);  // expect: CMP-02
    heat<<<1, 32>>>(r, s, n);
    std::swap(r, s);
}
}
