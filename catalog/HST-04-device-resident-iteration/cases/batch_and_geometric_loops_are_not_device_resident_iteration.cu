// Case: batch and geometric loops are not device resident iteration.
// only the last loop carries one state through iterations
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, int batches, float* d_a, float* d_b) {
    for (int b = 0; b < batches; ++b)
        step<<<(n + 255) / 256, 256>>>(d_a + b * n, d_b + b * n, n);
    int blocks = n;
    while (blocks > 1) {
        blocks = (blocks + 255) / 256;
        step<<<blocks, 256>>>(d_b, d_b, blocks);
    }
    for (int t = 0; t < 100; ++t)  // expect: HST-04
        step<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
}
