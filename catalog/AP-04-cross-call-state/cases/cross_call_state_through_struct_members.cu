// Case: cross call state through struct members.
#include <cuda_runtime.h>
struct Cache { float* buf; int n; };
static Cache g_cache;  // expect: AP-04
extern "C" void solution_compute(int n, float* out) {
    if (g_cache.n != n) {
        cudaMalloc(&g_cache.buf, n * sizeof(float));
        g_cache.n = n;
    }
    cudaMemcpy(out, g_cache.buf, n * sizeof(float), cudaMemcpyDeviceToHost);
}
