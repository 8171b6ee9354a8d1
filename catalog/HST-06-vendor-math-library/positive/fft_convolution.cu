// Circular convolution of two real signals of length N with cuFFT: forward transforms, a
// pointwise complex product, inverse transform and scaling.
#include <cuda_runtime.h>
#ifdef HAVE_CUFFT_H  // build with -DHAVE_CUFFT_H where the cuFFT headers are installed
#include <cufft.h>
#else
// Prototypes from cufft.h for machines without the cuFFT headers (compile-only).
typedef int cufftHandle;
typedef int cufftResult;
typedef float cufftReal;
typedef float2 cufftComplex;
typedef enum { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c } cufftType;
extern "C" cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch);
extern "C" cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata);
extern "C" cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata);
extern "C" cufftResult cufftDestroy(cufftHandle plan);
#endif

__global__ void pointwise_mul(cufftComplex* a, const cufftComplex* b, int m, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    cufftComplex x = a[i], y = b[i];
    a[i].x = (x.x * y.x - x.y * y.y) * scale;
    a[i].y = (x.x * y.y + x.y * y.x) * scale;
}

extern "C" void solution_compute(int N, const float* signal, const float* kernel, float* out) {
    int M = N / 2 + 1;
    cufftReal *d_s, *d_k;
    cufftComplex *d_S, *d_K;
    cudaMalloc(&d_s, N * sizeof(cufftReal));
    cudaMalloc(&d_k, N * sizeof(cufftReal));
    cudaMalloc(&d_S, M * sizeof(cufftComplex));
    cudaMalloc(&d_K, M * sizeof(cufftComplex));
    cudaMemcpy(d_s, signal, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_k, kernel, N * sizeof(float), cudaMemcpyHostToDevice);

    cufftHandle fwd, inv;
    cufftPlan1d(&fwd, N, CUFFT_R2C, 1);
    cufftPlan1d(&inv, N, CUFFT_C2R, 1);
    cufftExecR2C(fwd, d_s, d_S);  // expect: HST-06
    cufftExecR2C(fwd, d_k, d_K);  // expect: HST-06
    pointwise_mul<<<(M + 255) / 256, 256>>>(d_S, d_K, M, 1.0f / N);
    cufftExecC2R(inv, d_S, d_s);  // expect: HST-06

    cudaMemcpy(out, d_s, N * sizeof(float), cudaMemcpyDeviceToHost);
    cufftDestroy(fwd);
    cufftDestroy(inv);
    cudaFree(d_s); cudaFree(d_k); cudaFree(d_S); cudaFree(d_K);
}
