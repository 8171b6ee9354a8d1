// Case: per request upload and result read are not a round trip.
// ok: HST-04, AP-02
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, int reqs, const float* init, float* d_a, float* d_b, float* res) {
    for (int r = 0; r < reqs; ++r) {
        cudaMemcpy(d_a, init + (size_t)r * n, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
        cudaMemcpy(res + r, d_a, sizeof(float), cudaMemcpyDeviceToHost);
    }
}
