#include <cuda_runtime.h>

// Block sums (a reduction, not a prefix sum): the doubling loop combines
// s[tid] with s[tid + stride], so no element receives the sum of its prefix.
__global__ void block_reduce(const float* x, float* partial, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {  // ok: PAR-07
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

__global__ void sum_partials(const float* partial, float* out, int blocks) {
    float acc = 0.0f;
    for (int b = 0; b < blocks; ++b) acc += partial[b];
    *out = acc;
}

extern "C" void solution_compute(int n, const float* x, float* out) {
    int blocks = (n + 255) / 256;
    float *dx, *dp, *dout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dp, blocks * sizeof(float));
    cudaMalloc(&dout, sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    block_reduce<<<blocks, 256>>>(dx, dp, n);
    sum_partials<<<1, 1>>>(dp, dout, blocks);
    cudaMemcpy(out, dout, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dp);
    cudaFree(dout);
}
