#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Classic tiled transpose: the extra column makes the column-wise reads hit 32 different banks.
__global__ void transpose_padded(const float* in, float* out, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1]; // expect: MEM-08
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void solution_compute(const float* in, float* out, int width, int height) {
    float *di, *dout;
    cudaMalloc(&di, sizeof(float) * width * height);
    cudaMalloc(&dout, sizeof(float) * width * height);
    cudaMemcpy(di, in, sizeof(float) * width * height, cudaMemcpyHostToDevice);
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    transpose_padded<<<grid, block>>>(di, dout, width, height);
    cudaMemcpy(out, dout, sizeof(float) * width * height, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
