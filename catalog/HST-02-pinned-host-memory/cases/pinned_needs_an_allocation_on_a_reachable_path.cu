// Case: pinned needs an allocation on a reachable path.
#include <cuda_runtime.h>
#include <cstdio>
static void unused(float** p, size_t b) { cudaMallocHost(p, b); }
extern "C" void solution_compute(float* h, size_t bytes) {
    float* p = nullptr;
    printf("cudaHostAlloc would help\n");
    cudaHostRegister(h, bytes, cudaHostRegisterDefault);  // expect: HST-02
    cudaFreeHost(p);
}
