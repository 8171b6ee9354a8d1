#include <cuda_runtime.h>

// A ballot used to count matches per warp (bit-level work, not a warp-uniform branch), and a
// comparison on the host.
__global__ void count_above(const float* x, int* count, int n, float thr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = __ballot_sync(0xffffffffu, i < n && x[i] > thr); // ok: CMP-06
    if ((threadIdx.x & 31) == 0) atomicAdd(count, __popc(m));
}

extern "C" void solution_compute(const float* x, int n, float thr, int* count) {
    float* dx; int* dc;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dc, sizeof(int));
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, sizeof(int));
    count_above<<<(n + 255) / 256, 256>>>(dx, dc, n, thr);
    cudaMemcpy(count, dc, sizeof(int), cudaMemcpyDeviceToHost);
    int big = (*count > n / 2) * 1; // ok: CMP-06
    (void)big;
    cudaFree(dx); cudaFree(dc);
}
