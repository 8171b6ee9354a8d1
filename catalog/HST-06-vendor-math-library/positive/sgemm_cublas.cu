// C = A * B for row-major single-precision matrices through cuBLAS (column-major trick:
// compute C^T = B^T * A^T).
#include <cuda_runtime.h>
#ifdef HAVE_CUBLAS_V2_H  // build with -DHAVE_CUBLAS_V2_H where the cuBLAS headers are installed
#include <cublas_v2.h>
#else
// Prototypes from cublas_v2.h for machines without the cuBLAS headers (compile-only).
typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
extern "C" cublasStatus_t cublasCreate(cublasHandle_t* handle);
extern "C" cublasStatus_t cublasDestroy(cublasHandle_t handle);
extern "C" cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const float* alpha, const float* A, int lda, const float* B,
                                      int ldb, const float* beta, float* C, int ldc);
#endif

extern "C" void solution_compute(int M, int N, int K, const float* A, const float* B, float* C) {
    float *dA, *dB, *dC;
    cudaMalloc(&dA, (size_t)M * K * sizeof(float));
    cudaMalloc(&dB, (size_t)K * N * sizeof(float));
    cudaMalloc(&dC, (size_t)M * N * sizeof(float));
    cudaMemcpy(dA, A, (size_t)M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, (size_t)K * N * sizeof(float), cudaMemcpyHostToDevice);

    cublasHandle_t handle;
    cublasCreate(&handle);
    const float alpha = 1.0f, beta = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, dB, N, dA, K, &beta, dC, N);  // expect: HST-06
    cublasDestroy(handle);

    cudaMemcpy(C, dC, (size_t)M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}
