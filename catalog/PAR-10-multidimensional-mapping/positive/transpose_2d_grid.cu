#include <cuda_runtime.h>

#define TILE 32

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x;
    int ty = blockIdx.x * TILE + threadIdx.y;
    if (tx < rows && ty < cols) out[(size_t)ty * rows + tx] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solution_compute(int rows, int cols, const float* in, float* out) {
    float *din, *dout;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    cudaMalloc(&din, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_kernel<<<grid, block>>>(din, dout, rows, cols);  // expect: PAR-10
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
}
