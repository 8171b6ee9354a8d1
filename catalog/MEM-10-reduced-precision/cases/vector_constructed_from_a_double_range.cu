// Case: vector constructed from a double range.
#include <vector>
extern "C" void solution_compute(const double* x, const float* y, int n) {
    std::vector<float> hx(x, x + n);  // expect: MEM-10
    std::vector<float> hy(y, y + n);
    std::vector<float> hz(n);
}
