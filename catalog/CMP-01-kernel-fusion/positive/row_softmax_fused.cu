#include <cuda_runtime.h>
#include <float.h>

#define THREADS 256

// Reference: three passes per row (max, sum of exponentials, normalise). Here one block owns a
// row and all three passes run in one kernel; the row max and the sum stay in shared memory.
__global__ void softmax_rows( // expect: CMP-01
    const float* x, float* y, int cols) {
    __shared__ float red[THREADS];
    const float* row = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;

    float m = -FLT_MAX;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(row[j] - row_max);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];

    for (int j = threadIdx.x; j < cols; j += blockDim.x) out[j] = expf(row[j] - row_max) * inv;
}

extern "C" void solution_compute(const float* x, float* y, int rows, int cols) {
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * rows * cols);
    cudaMalloc(&dy, sizeof(float) * rows * cols);
    cudaMemcpy(dx, x, sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    softmax_rows<<<rows, THREADS>>>(dx, dy, cols);
    cudaMemcpy(y, dy, sizeof(float) * rows * cols, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
