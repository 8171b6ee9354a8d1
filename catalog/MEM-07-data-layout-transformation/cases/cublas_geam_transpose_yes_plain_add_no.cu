// Case: cublasSgeam with a transposed first operand and beta = 0 is cuBLAS's out-of-place
// transpose: the weights are re-laid out once so that the GEMM reads them without a transpose.
// A geam with no transposed operand is a matrix sum, not a re-layout.
#ifdef HAVE_CUBLAS_V2_H  // build with -DHAVE_CUBLAS_V2_H where the cuBLAS headers are installed
#include <cublas_v2.h>
#else
// Prototypes from cublas_v2.h for machines without the cuBLAS headers (compile-only).
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
extern "C" cublasStatus_t cublasSgeam(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, const float *, const float *, int, const float *,
                                      const float *, int, float *, int);
extern "C" cublasStatus_t cublasSgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, int, const float *, const float *, int, const float *,
                                      int, const float *, float *, int);
#endif

extern "C" void solution_compute(cublasHandle_t h, const float *w, float *wt, const float *x,
                                 float *y, float *bias2, const float *bias, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, w, m, &zero, wt, n, wt, n);  // expect: MEM-07
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, m, &one, wt, n, x, m, &zero, y, n);
    cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, &one, y, n, &one, bias, n, bias2, n);  // ok: MEM-07
}
