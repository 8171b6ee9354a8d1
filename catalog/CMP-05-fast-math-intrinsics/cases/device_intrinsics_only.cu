// Case: device intrinsics only.
#include <math.h>
__global__ void k(const float* x, float* y) {
    y[threadIdx.x] = __expf(x[threadIdx.x]) + expf(x[threadIdx.x]);  // expect: CMP-05
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b);
b[0] = fmaf(a[0], a[1], a[2]);
}
