// Case: flag copied every iteration is AP-02 not HST-04.
// ok: HST-04, HST-05
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
__global__ void sweep(float* u, int n, int* changed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && u[i] > 0.0f) { u[i] *= 0.5f; *changed = 1; }
}
extern "C" void solution_compute(int n, float* d_u, int* d_changed) {
    int changed = 1;
    while (changed) {
        cudaMemset(d_changed, 0, sizeof(int));
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, d_changed);
        cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);  // expect: AP-02
    }
}
