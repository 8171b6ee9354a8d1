#include <cuda_runtime.h>

// Atomics that do not hand out work: one reserves an output slot for a kept
// element, the other accumulates a total.
__global__ void keep_above(const float* x, int n, float thr, float* kept, int* kept_count,
                           float* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > thr) {
        int slot = atomicAdd(kept_count, 1);  // ok: LBL-01
        kept[slot] = v;
        atomicAdd(total, v);  // ok: LBL-01
    }
}

extern "C" void solution_compute(int n, const float* x, float thr, float* kept, int* kept_count,
                                 float* total) {
    float *dx, *dk, *dt;
    int* dc;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dk, n * sizeof(float));
    cudaMalloc(&dt, sizeof(float));
    cudaMalloc(&dc, sizeof(int));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, sizeof(int));
    cudaMemset(dt, 0, sizeof(float));
    keep_above<<<(n + 255) / 256, 256>>>(dx, n, thr, dk, dc, dt);
    cudaMemcpy(kept_count, dc, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(kept, dk, *kept_count * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(total, dt, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dk);
    cudaFree(dt);
    cudaFree(dc);
}
