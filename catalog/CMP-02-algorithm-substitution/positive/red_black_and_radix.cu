#include <cuda_runtime.h>

// Reference: lexicographic Gauss-Seidel sweeps. Port: red-black ordering, each colour updated in
// parallel from the other colour's values.
__global__ void rb_sweep(float* u, const float* f, int nx, int ny, float h2, int color) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    if (((x + y) & 1) != color) return; // expect: CMP-02
    int c = y * nx + x;
    u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - h2 * f[c]);
}

// Reference: comparison sort of the keys. Port: LSD radix passes; this kernel counts one digit.
__global__ void digit_histogram(const unsigned* keys, unsigned* counts, int n, int shift) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[(keys[i] >> shift) & 255u], 1u); // expect: CMP-02
    __syncthreads();
    atomicAdd(&counts[blockIdx.x * 256 + threadIdx.x], local[threadIdx.x]);
}

extern "C" void solution_compute(float* u, const float* f, int nx, int ny, float h, int sweeps,
                                 const unsigned* keys, unsigned* counts, int n) {
    size_t bytes = sizeof(float) * nx * ny;
    float *du, *df;
    cudaMalloc(&du, bytes); cudaMalloc(&df, bytes);
    cudaMemcpy(du, u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice);
    dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
    for (int s = 0; s < sweeps; ++s) {
        rb_sweep<<<grid, block>>>(du, df, nx, ny, h * h, 0);
        rb_sweep<<<grid, block>>>(du, df, nx, ny, h * h, 1);
    }
    cudaMemcpy(u, du, bytes, cudaMemcpyDeviceToHost);

    int blocks = (n + 255) / 256;
    unsigned *dk, *dc;
    cudaMalloc(&dk, sizeof(unsigned) * n);
    cudaMalloc(&dc, sizeof(unsigned) * blocks * 256 * 4);
    cudaMemcpy(dk, keys, sizeof(unsigned) * n, cudaMemcpyHostToDevice);
    for (int pass = 0; pass < 4; ++pass)
        digit_histogram<<<blocks, 256>>>(dk, dc + pass * blocks * 256, n, pass * 8);
    cudaMemcpy(counts, dc, sizeof(unsigned) * blocks * 256 * 4, cudaMemcpyDeviceToHost);
    cudaFree(du); cudaFree(df); cudaFree(dk); cudaFree(dc);
}
