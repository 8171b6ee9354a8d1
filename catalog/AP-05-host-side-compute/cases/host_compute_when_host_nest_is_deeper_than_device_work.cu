// Case: host compute when host nest is deeper than device work.
#include <cuda_runtime.h>
__global__ void scale(float* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2.0f; }
extern "C" void solution_compute(int n, const float* x, float* d_a, float* out) {
    for (int i = 0; i < n; ++i) {  // expect: AP-05
        float s = 0.0f;
        for (int j = 0; j < n; ++j) s += x[i] * x[j];
        out[i] = s;
    }
    scale<<<(n + 255) / 256, 256>>>(d_a, n);
}
