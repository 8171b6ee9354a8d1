// Sorts each of B rows of length L (a power of two) with a bitonic network. The batch loop
// offsets the data by the batch index and the stage loops double their step: neither is an
// iteration of one state towards convergence.
#include <cuda_runtime.h>

__global__ void bitonic_step(float* data, int len, int j, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int partner = i ^ j;
    if (i >= len || partner <= i) return;
    bool up = (i & k) == 0;
    float a = data[i], b = data[partner];
    if ((a > b) == up) { data[i] = b; data[partner] = a; }
}

extern "C" void solution_compute(int B, int L, float* rows) {
    float* d;
    size_t bytes = (size_t)B * L * sizeof(float);
    cudaMalloc(&d, bytes);
    cudaMemcpy(d, rows, bytes, cudaMemcpyHostToDevice);
    int t = 256, blocks = (L + t - 1) / t;
    for (int b = 0; b < B; ++b) {  // ok: HST-04
        float* row = d + (size_t)b * L;
        for (int k = 2; k <= L; k <<= 1)  // ok: HST-04
            for (int j = k >> 1; j > 0; j >>= 1)
                bitonic_step<<<blocks, t>>>(row, L, j, k);
    }
    cudaMemcpy(rows, d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d);
}
