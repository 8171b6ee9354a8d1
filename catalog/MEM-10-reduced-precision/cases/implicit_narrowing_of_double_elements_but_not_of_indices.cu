// Case: implicit narrowing of double elements but not of indices.
#include <vector>
__global__ void k(const double* x, const long long* rp, float* y) {
    float v = x[threadIdx.x];  // expect: MEM-10
    int start = rp[threadIdx.x];
    y[threadIdx.x] = v + start;
}
extern "C" void solution_compute(const double* x, int n) {
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = x[i];  // expect: MEM-10
    k<<<1, 32>>>(0, 0, 0);
}
