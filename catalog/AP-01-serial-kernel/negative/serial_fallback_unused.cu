// Matrix transpose, one thread per element. A serial debugging kernel is still in the file,
// launched only from a helper that the entry point never calls.
#include <cuda_runtime.h>

__global__ void transpose_serial(const float* in, float* out, int rows, int cols) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

__global__ void transpose(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

static void debug_transpose(const float* d_in, float* d_out, int rows, int cols) {
    transpose_serial<<<1, 1>>>(d_in, d_out, rows, cols);  // ok: AP-01
    cudaDeviceSynchronize();
}

extern "C" void solution_compute(int rows, int cols, const float* in, float* out) {
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice);
    dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    transpose<<<grid, block>>>(d_in, d_out, rows, cols);
    cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in); cudaFree(d_out);
}
