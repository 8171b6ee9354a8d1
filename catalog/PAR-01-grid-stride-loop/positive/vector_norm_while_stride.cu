#include <cuda_runtime.h>

// Squared distances of points to a fixed center; the grid is capped and each
// thread walks the array with a stride of the whole grid.
__global__ void dist2_kernel(const float* x, const float* y, const float* z, float cx, float cy,
                             float cz, float* out, long long n) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    while (idx < n) {  // expect: PAR-01
        float dx = x[idx] - cx, dy = y[idx] - cy, dz = z[idx] - cz;
        out[idx] = dx * dx + dy * dy + dz * dz;
        idx += stride;
    }
}

extern "C" void solution_compute(long long n, const float* x, const float* y, const float* z,
                                 float cx, float cy, float cz, float* out) {
    float *dx, *dy, *dz, *dout;
    size_t bytes = n * sizeof(float);
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dz, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dz, z, bytes, cudaMemcpyHostToDevice);
    int blocks = (int)((n + 255) / 256);
    if (blocks > 2048) blocks = 2048;
    dist2_kernel<<<blocks, 256>>>(dx, dy, dz, cx, cy, cz, dout, n);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dz);
    cudaFree(dout);
}
