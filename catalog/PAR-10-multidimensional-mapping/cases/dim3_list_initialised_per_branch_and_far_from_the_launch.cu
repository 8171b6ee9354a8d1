// Case: launch shapes declared as const dim3 name = {x, y, z}, the same names declared again in
// another branch for a 1-D launch, and a 2-D grid declared long before its launch. Each launch
// reads the declaration in scope before it; a far declaration is evidence of its own.
#include <cuda_runtime.h>

__global__ void scale2d(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[r * cols + c] = 2.0f * in[r * cols + c];
}

__global__ void scale1d(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void shift2d(float* a, int rows, int cols, float d) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) a[r * cols + c] += d;
}

void scale(const float* in, float* out, int rows, int cols, bool tiled) {
    if (tiled) {
        const dim3 threads = {32, 8, 1};  // expect: PAR-10
        const dim3 blocks = {(unsigned)(cols + 31) / 32, (unsigned)(rows + 7) / 8, 1};
        scale2d<<<blocks, threads>>>(in, out, rows, cols);
    } else {
        const dim3 threads = {256, 1, 1};
        const dim3 blocks = {(unsigned)(rows * cols + 255) / 256, 1, 1};
        scale1d<<<blocks, threads>>>(in, out, rows * cols);  // ok: PAR-10
    }
}

void shift(float* a, int rows, int cols, float d) {
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);  // expect: PAR-10
    dim3 block(16, 16);  // expect: PAR-10
    float* scratch = nullptr;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    cudaMalloc(&scratch, bytes);
    cudaMemset(scratch, 0, bytes);
    cudaMemcpy(scratch, a, bytes, cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize();
    int runs = 1;
    for (int k = 0; k < 2; ++k) runs *= 1;
    cudaEvent_t done;
    cudaEventCreate(&done);
    cudaEventRecord(done);
    cudaEventSynchronize(done);
    cudaEventDestroy(done);
    cudaFree(scratch);
    for (int k = 0; k < runs; ++k)
        shift2d<<<grid, block>>>(a, rows, cols, d);  // expect: PAR-10
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols) {
    scale(in, out, rows, cols, cols % 32 == 0);
    shift(out, rows, cols, 1.0f);
    cudaDeviceSynchronize();
}
