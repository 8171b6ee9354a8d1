// Case: flag checked every k iterations is HST-04 and HST-05 not AP-02.
// ok: AP-02
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
__global__ void sweep(float* u, int n, int* changed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && u[i] > 0.0f) { u[i] *= 0.5f; *changed = 1; }
}
extern "C" void solution_compute(int n, int max_iter, float* d_u, int* d_changed) {
    for (int it = 0; it < max_iter; ++it) {  // expect: HST-04
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, d_changed);
        if (it % 16 == 15) {  // expect: HST-05
            int changed;
            cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
            if (!changed) break;
            cudaMemset(d_changed, 0, sizeof(int));
        }
    }
}
