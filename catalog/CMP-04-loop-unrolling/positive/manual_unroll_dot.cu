#include <cuda_runtime.h>

// Each thread reduces a strip of the vectors; the strip loop is unrolled by hand four times with
// independent accumulators.
__global__ void strip_dot(const float* a, const float* b, float* partial, int n, int strip) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = t * strip, end = min(begin + strip, n);
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    int i = begin;
    for (; i + 3 < end; i += 4) { // expect: CMP-04
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < end; ++i) s0 += a[i] * b[i];
    if (begin < n) partial[t] = (s0 + s1) + (s2 + s3);
}

extern "C" void solution_compute(const float* a, const float* b, float* result, int n) {
    const int strip = 64, threads = 256;
    int workers = (n + strip - 1) / strip;
    float *da, *db, *dp;
    cudaMalloc(&da, sizeof(float) * n); cudaMalloc(&db, sizeof(float) * n);
    cudaMalloc(&dp, sizeof(float) * workers);
    cudaMemcpy(da, a, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof(float) * n, cudaMemcpyHostToDevice);
    strip_dot<<<(workers + threads - 1) / threads, threads>>>(da, db, dp, n, strip);
    float* hp = new float[workers];
    cudaMemcpy(hp, dp, sizeof(float) * workers, cudaMemcpyDeviceToHost);
    double s = 0.0;
    for (int w = 0; w < workers; ++w) s += hp[w];
    result[0] = (float)s;
    delete[] hp;
    cudaFree(da); cudaFree(db); cudaFree(dp);
}
