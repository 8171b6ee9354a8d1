// spmv_power with the vendor libraries: cuSPARSE SpMV (CSR) for y = A x, cuBLAS Snrm2 for the
// norm and Sscal for the normalisation. The two dense-vector descriptors swap roles each
// iteration, so the normalised y is the next x without a copy.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <cstdio>
#include <utility>

#define CUDA_OK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "spmv_power: %s: %s\n", #call, cudaGetErrorString(e_));        \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)
#define SPARSE_OK(call)                                                                    \
    do {                                                                                   \
        cusparseStatus_t s_ = (call);                                                      \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "spmv_power: %s: %s\n", #call, cusparseGetErrorString(s_));    \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)
#define BLAS_OK(call)                                                                      \
    do {                                                                                   \
        cublasStatus_t s_ = (call);                                                        \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            fprintf(stderr, "spmv_power: %s: status %d\n", #call, (int)s_);                \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    const int nnz = row_ptr[n];
    int *d_ptr = nullptr, *d_col = nullptr;
    float *d_val = nullptr, *d_x = nullptr, *d_y = nullptr;
    void* d_buf = nullptr;
    size_t buf_bytes = 0;
    cusparseHandle_t sp = nullptr;
    cublasHandle_t bl = nullptr;
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    const float one = 1.0f, zero = 0.0f;
    float* cur = nullptr;

    CUDA_OK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CUDA_OK(cudaMalloc(&d_col, (size_t)nnz * sizeof(int)));
    CUDA_OK(cudaMalloc(&d_val, (size_t)nnz * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_y, (size_t)n * sizeof(float)));
    CUDA_OK(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_col, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_val, vals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_x, x0, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    SPARSE_OK(cusparseCreate(&sp));
    BLAS_OK(cublasCreate(&bl));
    SPARSE_OK(cusparseCreateCsr(&A, n, n, nnz, d_ptr, d_col, d_val, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE_OK(cusparseCreateDnVec(&vx, n, d_x, CUDA_R_32F));
    SPARSE_OK(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_32F));
    SPARSE_OK(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                      CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &buf_bytes));
    CUDA_OK(cudaMalloc(&d_buf, buf_bytes ? buf_bytes : 1));

    cur = d_x;
    for (int it = 0; it < iters; ++it) {
        float nrm = 0.0f;
        SPARSE_OK(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                               CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, d_buf));
        BLAS_OK(cublasSnrm2(bl, n, d_y, 1, &nrm));
        if (nrm > 0.0f) {
            const float inv = 1.0f / nrm;
            BLAS_OK(cublasSscal(bl, n, &inv, d_y, 1));
        }
        std::swap(vx, vy);
        std::swap(d_x, d_y);
        cur = d_x;
    }
    CUDA_OK(cudaMemcpy(x_out, cur, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    if (A) cusparseDestroySpMat(A);
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (sp) cusparseDestroy(sp);
    if (bl) cublasDestroy(bl);
    cudaFree(d_buf);
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_val);
    cudaFree(d_x);
    cudaFree(d_y);
}
