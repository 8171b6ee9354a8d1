// expect-failure: wrong
// Honest but wrong: keeps x and y on the device as FP8 (E4M3, three mantissa bits) to quarter
// the kernel's reads. Errors of several percent, well outside the task's 1e-2 tolerance on most
// elements: a wrong answer on every call, which the harness must not call kept state.
#include <cuda_fp8.h>
#include <cuda_runtime.h>

__global__ void to_fp8(int n, const float* x, const float* y, __nv_fp8_e4m3* qx, __nv_fp8_e4m3* qy)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        qx[i] = __nv_fp8_e4m3(x[i]);
        qy[i] = __nv_fp8_e4m3(y[i]);
    }
}

__global__ void saxpy_fp8(int n, float a, const __nv_fp8_e4m3* x, const __nv_fp8_e4m3* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * float(x[i]) + float(y[i]);
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dx, *dy, *dout;
    __nv_fp8_e4m3 *qx, *qy;
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dout, bytes);
    cudaMalloc(&qx, n);
    cudaMalloc(&qy, n);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    to_fp8<<<(n + 255) / 256, 256>>>(n, dx, dy, qx, qy);
    saxpy_fp8<<<(n + 255) / 256, 256>>>(n, a, qx, qy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
    cudaFree(qx);
    cudaFree(qy);
}
