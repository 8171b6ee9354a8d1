// Tiled SGEMM written by hand; a cuBLAS path exists in a helper that the entry point never
// calls, and the library is only named in a log string.
#include <cuda_runtime.h>
#include <cstdio>
#ifdef HAVE_CUBLAS_V2_H  // build with -DHAVE_CUBLAS_V2_H where the cuBLAS headers are installed
#include <cublas_v2.h>
#else
typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
extern "C" cublasStatus_t cublasCreate(cublasHandle_t* handle);
extern "C" cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const float* alpha, const float* A, int lda, const float* B,
                                      int ldb, const float* beta, float* C, int ldc);
#endif

#define TILE 16

__global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[row * K + t + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && t + threadIdx.y < K) ? B[(t + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

static void gemm_cublas(const float* dA, const float* dB, float* dC, int M, int N, int K) {
    cublasHandle_t h;
    cublasCreate(&h);
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, N, dA, K, &zero, dC, N);  // ok: HST-06
}

extern "C" void solution_compute(int M, int N, int K, const float* A, const float* B, float* C) {
    fprintf(stderr, "using hand-written kernel instead of cublasSgemm\n");  // ok: HST-06
    float *dA, *dB, *dC;
    cudaMalloc(&dA, (size_t)M * K * sizeof(float));
    cudaMalloc(&dB, (size_t)K * N * sizeof(float));
    cudaMalloc(&dC, (size_t)M * N * sizeof(float));
    cudaMemcpy(dA, A, (size_t)M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, (size_t)K * N * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C, dC, (size_t)M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}
