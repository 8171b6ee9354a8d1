// Case: host compute when nothing runs on the device.
#include <cuda_runtime.h>
__global__ void unused(float* a) { a[threadIdx.x] = 0.0f; }
extern "C" void solution_compute(int n, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = x[i] * x[i] + 1.0f;  // expect: AP-05
}
