#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);  // expect: PAR-03
    return v;
}

__global__ void dot_kernel(const float* a, const float* b, float* result, int n) {
    __shared__ float warp_totals[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += a[i] * b[i];
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x >> 5) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(result, v);
    }
}

extern "C" void solution_compute(int n, const float* a, const float* b, float* result) {
    float *da, *db, *dr;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dr, sizeof(float));
    cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dr, 0, sizeof(float));
    dot_kernel<<<512, 256>>>(da, db, dr, n);
    cudaMemcpy(result, dr, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dr);
}
