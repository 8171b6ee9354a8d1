// Case: soa packed into float4 on the host.
#include <vector>
extern "C" void solution_compute(const float* x, const float* y, const float* m, int n) {
    std::vector<float4> pos(n);
    for (int i = 0; i < n; ++i) pos[i] = make_float4(x[i], y[i], 0.0f, m[i]);  // expect: MEM-07
    for (int i = 0; i < n; ++i) pos[i] = make_float4(x[i], 0.0f, 0.0f, 0.0f);
}
