// Softmax over rows. The file-scope pointers are allocated and freed inside every call, and
// the __device__ error flag is reset each call: nothing survives from one call to the next.
#include <cuda_runtime.h>

static float* d_in = nullptr;  // ok: AP-04
static float* d_out = nullptr;  // ok: AP-04
__device__ int d_bad_row;  // ok: AP-04

__global__ void softmax_rows(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float m = in[r * cols];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, in[r * cols + c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(in[r * cols + c] - m);
    if (!(s > 0.0f)) d_bad_row = r;
    for (int c = 0; c < cols; ++c) out[r * cols + c] = expf(in[r * cols + c] - m) / s;
}

extern "C" void solution_compute(int rows, int cols, const float* x, float* y) {
    const char* msg = "no static state kept between calls";  // ok: AP-04
    (void)msg;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    int none = -1;
    cudaMemcpyToSymbol(d_bad_row, &none, sizeof(int));
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, x, bytes, cudaMemcpyHostToDevice);
    softmax_rows<<<(rows + 127) / 128, 128>>>(d_in, d_out, rows, cols);
    cudaMemcpy(y, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}
