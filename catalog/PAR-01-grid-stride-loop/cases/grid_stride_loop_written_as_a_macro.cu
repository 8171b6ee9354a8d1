// Case: the grid-stride loop is a macro, and the launch sits in a macro that the host code uses:
// both are read as the compiler sees them after preprocessing.
#include <cuda_runtime.h>

#define EACH_ELEMENT(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

#define RUN_SCALE(blocks, x, s, n) \
    scale<<<(blocks), 256>>>((x), (s), (n)); \
    cudaDeviceSynchronize()

__global__ void scale(float* x, float s, int n) {
    EACH_ELEMENT(k, n) {  // expect: PAR-01
        x[k] *= s;
    }
}

int main() {
    const int n = 1 << 20;
    float* x;
    cudaMalloc(&x, n * sizeof(float));
    RUN_SCALE(132, x, 2.0f, n);
    cudaFree(x);
    return 0;
}
