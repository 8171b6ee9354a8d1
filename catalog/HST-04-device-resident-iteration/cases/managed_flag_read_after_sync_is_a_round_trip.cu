// Case: managed flag read after sync is a round trip.
// ok: HST-04
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
__global__ void sweep(float* u, int n, int* changed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && u[i] > 0.0f) { u[i] *= 0.5f; *changed = 1; }
}
extern "C" void solution_compute(int n, float* d_u) {
    int* flag;
    cudaMallocManaged(&flag, sizeof(int));
    do {
        *flag = 0;
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, flag);
        cudaDeviceSynchronize();  // expect: AP-02
    } while (*flag);
}
