// Case: round trip only when the copy decides the loop.
#include <cuda_runtime.h>
__global__ void k(float* a, int n, int* f) { if (threadIdx.x == 0) *f = a[0] > 0.0f; }
extern "C" void solution_compute(int n, int reqs, float* d_a, int* d_f, float* out) {
    for (int r = 0; r < reqs; ++r) {
        k<<<1, 32>>>(d_a, n, d_f);
        cudaMemcpy(out + r, d_a, sizeof(float), cudaMemcpyDeviceToHost);
    }
    int go = 1, it = 0;
    while (go && it < 100) {
        k<<<1, 32>>>(d_a, n, d_f);
        cudaMemcpy(&go, d_f, sizeof(int), cudaMemcpyDeviceToHost);  // expect: AP-02
        ++it;
    }
}
