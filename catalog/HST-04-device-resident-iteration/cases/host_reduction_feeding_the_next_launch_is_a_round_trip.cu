// Case: host reduction feeding the next launch is a round trip.
// ok: HST-04
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
__global__ void scale(float* x, float inv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= inv;
}
extern "C" void solution_compute(float* d_x, int n, int iters) {
    thrust::device_ptr<float> p(d_x);
    for (int it = 0; it < iters; ++it) {
        float total = thrust::reduce(p, p + n);  // expect: AP-02
        float inv = 1.0f / total;
        scale<<<(n + 255) / 256, 256>>>(d_x, inv, n);
    }
}
