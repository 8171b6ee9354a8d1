// Case: cublas norm in loop condition is a round trip.
// ok: HST-04
#include <cuda_runtime.h>
typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasCreate(cublasHandle_t* h);
extern "C" int cublasSetStream(cublasHandle_t h, cudaStream_t s);
extern "C" int cublasSdot(cublasHandle_t h, int n, const float* x, int incx, const float* y,
                          int incy, float* result);
extern "C" int cusparseSpMV_bufferSize(int h);
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, float* d_x, float* d_r, float tol) {
    cublasHandle_t h;
    cublasCreate(&h);
    float rr = 1.0f;
    while (rr > tol) {
        step<<<(n + 255) / 256, 256>>>(d_x, d_r, n);
        cublasSdot(h, n, d_r, 1, d_r, 1, &rr);  // expect: HST-06, AP-02
    }
}
