#include <cuda_runtime.h>
#include <math.h>
#include <vector>

// Reference: direct DFT calling cos/sin for every (k, t) pair. Port: the n twiddle factors are
// computed once on the host and every thread looks them up by (k * t) mod n.
__global__ void dft(const float* x, const float2* tw, float2* X, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    float re = 0.0f, im = 0.0f;
    for (int t = 0; t < n; ++t) {
        float2 w = tw[(int)(((long long)k * t) % n)];
        re += x[t] * w.x;
        im -= x[t] * w.y;
    }
    X[k] = make_float2(re, im);
}

extern "C" void solution_compute(const float* x, float* re_im, int n) {
    std::vector<float2> tw(n);
    for (int j = 0; j < n; ++j) {
        double ang = 2.0 * M_PI * j / n;
        tw[j] = make_float2((float)cos(ang), (float)sin(ang)); // expect: CMP-03
    }
    float* dx; float2 *dtw, *dX;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dtw, sizeof(float2) * n);
    cudaMalloc(&dX, sizeof(float2) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dtw, tw.data(), sizeof(float2) * n, cudaMemcpyHostToDevice);
    dft<<<(n + 127) / 128, 128>>>(dx, dtw, dX, n);
    cudaMemcpy(re_im, dX, sizeof(float2) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dtw); cudaFree(dX);
}
