#include <cuda_runtime.h>

// Max |x| per block: warps reduce with shuffles, warp results meet in shared
// memory, the first warp reduces them and one value per block is written.
__global__ void block_max_abs(const float* x, float* block_max, int n) {
    __shared__ float warp_max[32];  // expect: PAR-04
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float m = i < n ? fabsf(x[i]) : 0.0f;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_max[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < blockDim.x / 32 ? warp_max[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
        if (lane == 0) block_max[blockIdx.x] = m;
    }
}

__global__ void final_max(const float* block_max, float* out, int blocks) {
    float m = 0.0f;
    for (int b = 0; b < blocks; ++b) m = fmaxf(m, block_max[b]);
    *out = m;
}

extern "C" void solution_compute(int n, const float* x, float* out) {
    int blocks = (n + 511) / 512;
    float *dx, *dbm, *dout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dbm, blocks * sizeof(float));
    cudaMalloc(&dout, sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    block_max_abs<<<blocks, 512>>>(dx, dbm, n);
    final_max<<<1, 1>>>(dbm, dout, blocks);
    cudaMemcpy(out, dout, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dbm);
    cudaFree(dout);
}
