// heat2d: direct CUDA version of the reference. One thread per cell, one kernel per time step.
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e = (call);                                                      \
        if (e != cudaSuccess) {                                                      \
            fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e),     \
                    __LINE__);                                                       \
            goto cleanup;                                                            \
        }                                                                            \
    } while (0)

__global__ void heat_step(const float* src, float* dst, int rows, int cols, float alpha)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= rows * cols) return;
    int i = idx / cols;
    int j = idx % cols;

    int up = (i > 0) ? i - 1 : 0;
    int down = (i < rows - 1) ? i + 1 : rows - 1;
    int left = (j > 0) ? j - 1 : 0;
    int right = (j < cols - 1) ? j + 1 : cols - 1;

    float u = src[i * cols + j];
    float n = src[up * cols + j];
    float s = src[down * cols + j];
    float w = src[i * cols + left];
    float e = src[i * cols + right];
    dst[idx] = u + alpha * (((n + s) + (e + w)) - 4.0f * u);
}

extern "C" void solution_compute(const float* grid_in, int rows, int cols, int steps,
                                 float alpha, float* grid_out)
{
    float* d_in = NULL;
    float* d_out = NULL;
    int n = rows * cols;
    size_t bytes = (size_t)n * sizeof(float);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;

    if (rows <= 0 || cols <= 0) return;

    CHECK(cudaMalloc((void**)&d_in, bytes));
    CHECK(cudaMalloc((void**)&d_out, bytes));
    CHECK(cudaMemcpy(d_in, grid_in, bytes, cudaMemcpyHostToDevice));

    for (int s = 0; s < steps; s++) {
        heat_step<<<blocks, threads>>>(d_in, d_out, rows, cols, alpha);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        // the new grid becomes the input of the next step
        CHECK(cudaMemcpy(d_in, d_out, bytes, cudaMemcpyDeviceToDevice));
    }

    CHECK(cudaMemcpy(grid_out, d_in, bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_in);
    cudaFree(d_out);
}
