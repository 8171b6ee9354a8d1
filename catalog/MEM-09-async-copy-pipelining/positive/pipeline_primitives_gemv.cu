#include <cuda_runtime.h>
#include <cuda_pipeline.h>

#define CHUNK 256

// y = A x with the next chunk of x copied asynchronously into shared memory while the current
// chunk is consumed (two stages).
__global__ void gemv_pipelined(const float* A, const float* x, float* y, int rows, int cols) {
    __shared__ float xs[2][CHUNK];
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int nchunks = (cols + CHUNK - 1) / CHUNK;
    if (threadIdx.x < CHUNK && threadIdx.x < cols)
        __pipeline_memcpy_async(&xs[0][threadIdx.x], &x[threadIdx.x], sizeof(float)); // expect: MEM-09
    __pipeline_commit();
    float acc = 0.0f;
    for (int c = 0; c < nchunks; ++c) {
        int next = c + 1;
        int j = next * CHUNK + threadIdx.x;
        if (next < nchunks && threadIdx.x < CHUNK && j < cols)
            __pipeline_memcpy_async(&xs[next & 1][threadIdx.x], &x[j], sizeof(float)); // expect: MEM-09
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        int len = min(CHUNK, cols - c * CHUNK);
        if (row < rows)
            for (int k = 0; k < len; ++k) acc += A[(size_t)row * cols + c * CHUNK + k] * xs[c & 1][k];
        __syncthreads();
    }
    if (row < rows) y[row] = acc;
}

extern "C" void solution_compute(const float* A, const float* x, float* y, int rows, int cols) {
    float *dA, *dx, *dy;
    cudaMalloc(&dA, sizeof(float) * rows * cols);
    cudaMalloc(&dx, sizeof(float) * cols);
    cudaMalloc(&dy, sizeof(float) * rows);
    cudaMemcpy(dA, A, sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, sizeof(float) * cols, cudaMemcpyHostToDevice);
    gemv_pipelined<<<(rows + 255) / 256, 256>>>(dA, dx, dy, rows, cols);
    cudaMemcpy(y, dy, sizeof(float) * rows, cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dx); cudaFree(dy);
}
