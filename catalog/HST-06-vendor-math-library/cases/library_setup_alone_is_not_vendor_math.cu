// Case: library setup alone is not vendor math.
#include <cuda_runtime.h>
typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasCreate(cublasHandle_t* h);
extern "C" int cublasSetStream(cublasHandle_t h, cudaStream_t s);
extern "C" int cublasSdot(cublasHandle_t h, int n, const float* x, int incx, const float* y,
                          int incy, float* result);
extern "C" int cusparseSpMV_bufferSize(int h);
extern "C" void solution_compute(int n, const float* d_x, float* out) {
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, 0);
    cusparseSpMV_bufferSize(0);
    cublasSdot(h, n, d_x, 1, d_x, 1, out);  // expect: HST-06
}
