#include <cuda_runtime.h>
#include <cuda_fp16.h>

// The double interface is kept in double on the device. A half-precision variant exists but is
// never launched ("__half would be faster" is only a note).
__global__ void norm_half(const __half* x, float* y, int n) { // ok: MEM-10
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fabsf(__half2float(x[i])); // ok: MEM-10
}

__global__ void axpby(const double* x, const double* y, double* z, double a, double b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + b * y[i];
}

extern "C" void solution_compute(const double* x, const double* y, double* z, double a, double b, int n) {
    const char* note = "__half would be faster";
    (void)note;
    double *dx, *dy, *dz;
    cudaMalloc(&dx, sizeof(double) * n);
    cudaMalloc(&dy, sizeof(double) * n);
    cudaMalloc(&dz, sizeof(double) * n);
    cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, sizeof(double) * n, cudaMemcpyHostToDevice);
    axpby<<<(n + 255) / 256, 256>>>(dx, dy, dz, a, b, n);
    cudaMemcpy(z, dz, sizeof(double) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(dz);
}
