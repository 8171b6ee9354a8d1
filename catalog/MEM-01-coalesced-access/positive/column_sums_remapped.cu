#include <cuda_runtime.h>

// Reference: for each row r, for each column c: colsum[c] += a[r][c].
// Port: the loop is re-mapped so that one thread owns a column and walks down the rows;
// in every iteration a warp reads 32 consecutive floats of one row.
__global__ void column_sums(const float* a, float* colsum, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (int r = 0; r < rows; ++r) {
        acc += a[(size_t)r * cols + c]; // expect: MEM-01
    }
    colsum[c] = acc; // expect: MEM-01
}

// 2-D heat step: threadIdx.x runs along the contiguous x dimension.
__global__ void heat_step(const float* u, float* un, int nx, int ny, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int id = y * nx + x;
    float lap = u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx] - 4.0f * u[id]; // expect: MEM-01
    un[id] = u[id] + alpha * lap; // expect: MEM-01
}

extern "C" void solution_compute(const float* a, float* colsum, int rows, int cols,
                                 const float* u0, float* u_out, int nx, int ny) {
    float *da, *dc, *du, *dn;
    cudaMalloc(&da, sizeof(float) * rows * cols);
    cudaMalloc(&dc, sizeof(float) * cols);
    cudaMemcpy(da, a, sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    column_sums<<<(cols + 127) / 128, 128>>>(da, dc, rows, cols);
    cudaMemcpy(colsum, dc, sizeof(float) * cols, cudaMemcpyDeviceToHost);

    size_t grid_bytes = sizeof(float) * nx * ny;
    cudaMalloc(&du, grid_bytes);
    cudaMalloc(&dn, grid_bytes);
    cudaMemcpy(du, u0, grid_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dn, u0, grid_bytes, cudaMemcpyHostToDevice);
    dim3 block(32, 8);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8);
    heat_step<<<grid, block>>>(du, dn, nx, ny, 0.1f);
    cudaMemcpy(u_out, dn, grid_bytes, cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(dc); cudaFree(du); cudaFree(dn);
}
