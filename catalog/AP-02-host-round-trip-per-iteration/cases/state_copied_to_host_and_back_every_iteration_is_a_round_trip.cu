// Case: state copied to host and back every iteration is a round trip.
#include <cuda_runtime.h>
__global__ void step(float* u, int n) { int i = threadIdx.x; if (i < n) u[i] *= 0.5f; }
extern "C" void solution_compute(int n, int steps, float* h_u, float* d_u) {
    for (int t = 0; t < steps; ++t) {
        cudaMemcpy(d_u, h_u, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<1, 256>>>(d_u, n);
        cudaMemcpy(h_u, d_u, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: AP-02
    }
}
