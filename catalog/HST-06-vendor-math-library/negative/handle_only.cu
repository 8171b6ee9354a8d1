// Matrix-vector product with a hand-written kernel; a cuBLAS handle is created and destroyed
// but no cuBLAS routine does any work.
#include <cuda_runtime.h>
#ifdef HAVE_CUBLAS_V2_H  // build with -DHAVE_CUBLAS_V2_H where the cuBLAS headers are installed
#include <cublas_v2.h>
#else
typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;
extern "C" cublasStatus_t cublasCreate(cublasHandle_t* handle);
extern "C" cublasStatus_t cublasDestroy(cublasHandle_t handle);
#endif

__global__ void gemv_rows(const float* A, const float* x, float* y, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += A[(size_t)warp * cols + j] * x[j];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) y[warp] = s;
}

extern "C" void solution_compute(int rows, int cols, const float* A, const float* x, float* y) {
    cublasHandle_t handle;
    cublasCreate(&handle);  // ok: HST-06
    float *dA, *dx, *dy;
    cudaMalloc(&dA, (size_t)rows * cols * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(dA, A, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice);
    gemv_rows<<<(rows * 32 + 255) / 256, 256>>>(dA, dx, dy, rows, cols);
    cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cublasDestroy(handle);  // ok: HST-06
    cudaFree(dA); cudaFree(dx); cudaFree(dy);
}
