#include <cuda_runtime.h>

// Counts positive values with a warp vote; __ballot_sync and __syncwarp are warp
// intrinsics but not shuffle collectives.
__global__ void count_positive(const float* x, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool pos = i < n && x[i] > 0.0f;
    unsigned mask = __ballot_sync(0xffffffff, pos);  // ok: PAR-03
    __syncwarp();  // ok: PAR-03
    if ((threadIdx.x & 31) == 0) atomicAdd(count, __popc(mask));
}

extern "C" void solution_compute(int n, const float* x, int* count) {
    float* dx;
    int* dc;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dc, sizeof(int));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, sizeof(int));
    count_positive<<<(n + 255) / 256, 256>>>(dx, dc, n);
    cudaMemcpy(count, dc, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dc);
}
