// Case: the launch configuration starts as dim3 (1, 1, 1) and its fields are set one by one
// afterwards (grid.y = rows / TILE): the grid is two-dimensional although its declaration is not.
#include <cuda_runtime.h>

#define TILE 16

__global__ void add_matrices(const float* a, const float* b, float* c, int rows, int cols) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) c[y * cols + x] = a[y * cols + x] + b[y * cols + x];
}

extern "C" void solution_compute(const float* a, const float* b, float* c, int rows, int cols) {
    dim3 grid(1, 1, 1);
    dim3 block(1, 1, 1);
    grid.x = (cols + TILE - 1) / TILE;
    grid.y = (rows + TILE - 1) / TILE;  // expect: PAR-10
    block.x = TILE;
    block.y = TILE;  // expect: PAR-10
    add_matrices<<<grid, block>>>(a, b, c, rows, cols);  // expect: PAR-10
    cudaDeviceSynchronize();
}
