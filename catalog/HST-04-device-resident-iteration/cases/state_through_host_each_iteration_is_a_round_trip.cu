// Case: state through host each iteration is a round trip.
// D2H into `host`, then H2D from `host` next iteration: a round trip although the buffers
// on the device differ; a chunk loop copying distinct slices back is not.
// ok: HST-04
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(float* host, int n, int steps, float* d_in, float* d_out) {
    for (int s = 0; s < steps; ++s) {
        cudaMemcpy(d_in, host, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
        cudaMemcpy(host, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: AP-02
    }
    int chunk = n / 4;
    for (int k = 0; k < 4; ++k) {
        cudaMemcpy(d_in + k * chunk, host + k * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(chunk + 255) / 256, 256>>>(d_in + k * chunk, d_out + k * chunk, chunk);
        cudaMemcpy(host + k * chunk, d_out + k * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost);
    }
}
