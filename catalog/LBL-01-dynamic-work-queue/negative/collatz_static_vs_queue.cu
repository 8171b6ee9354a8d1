#include <cuda_runtime.h>

// Collatz stopping times. A work-queue version (atomicAdd on a counter) was
// written but is not launched; the static one-thread-per-number kernel runs.
__global__ void collatz_queue_unused(unsigned long long* out, int n, int* next) {
    for (int i = atomicAdd(next, 1); i < n; i = atomicAdd(next, 1)) {  // ok: LBL-01
        unsigned long long v = i + 1, steps = 0;
        while (v != 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++steps; }
        out[i] = steps;
    }
}

__global__ void collatz_static(unsigned long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long v = i + 1, steps = 0;
    while (v != 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++steps; }
    out[i] = steps;
}

extern "C" void solution_compute(int n, unsigned long long* out) {
    unsigned long long* dout;
    cudaMalloc(&dout, n * sizeof(unsigned long long));
    collatz_static<<<(n + 255) / 256, 256>>>(dout, n);
    cudaMemcpy(out, dout, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
    cudaFree(dout);
}
