// Baseline CUDA port of heat2d: one thread per cell, one kernel launch per step, ping-pong buffers.
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

__global__ void heat_step(const float* __restrict__ src, float* __restrict__ dst, int rows,
                          int cols, float alpha)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rows || j >= cols) return;
    size_t row = (size_t)i * cols;
    size_t up = (size_t)(i > 0 ? i - 1 : 0) * cols;
    size_t down = (size_t)(i < rows - 1 ? i + 1 : rows - 1) * cols;
    float u = src[row + j];
    float w = src[row + (j > 0 ? j - 1 : 0)];
    float e = src[row + (j < cols - 1 ? j + 1 : cols - 1)];
    dst[row + j] = u + alpha * (((src[up + j] + src[down + j]) + (e + w)) - 4.0f * u);
}

extern "C" void solution_compute(const float* grid_in, int rows, int cols, int steps,
                                 float alpha, float* grid_out)
{
    float *a = nullptr, *b = nullptr;
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(float);
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    if (bytes == 0) return;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemcpy(a, grid_in, bytes, cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; s++) {
        heat_step<<<grid, block>>>(a, b, rows, cols, alpha);
        CK(cudaGetLastError());
        float* t = a;
        a = b;
        b = t;
    }
    CK(cudaMemcpy(grid_out, a, bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(a);
    cudaFree(b);
}
