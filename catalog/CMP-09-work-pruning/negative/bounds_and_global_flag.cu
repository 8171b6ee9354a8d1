#include <cuda_runtime.h>

// A bounds check and the task's own global stopping test (a scalar flag): neither prunes work
// beyond what the reference does.
__global__ void damped_step(float* x, const float* target, int n, const int* converged) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;         // ok: CMP-09
    if (*converged) return;     // ok: CMP-09
    x[i] += 0.5f * (target[i] - x[i]);
}

__global__ void check(const float* x, const float* target, int n, float tol, int* not_done) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && fabsf(target[i] - x[i]) > tol) *not_done = 1;
}

extern "C" void solution_compute(const float* x0, const float* target, float* x, int n, float tol) {
    float *dx, *dt; int *dconv, *dnd;
    cudaMalloc(&dx, sizeof(float) * n); cudaMalloc(&dt, sizeof(float) * n);
    cudaMalloc(&dconv, sizeof(int)); cudaMalloc(&dnd, sizeof(int));
    cudaMemcpy(dx, x0, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dt, target, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemset(dconv, 0, sizeof(int));
    for (int it = 0; it < 1000; ++it) {
        damped_step<<<(n + 255) / 256, 256>>>(dx, dt, n, dconv);
        int nd = 0;
        cudaMemcpy(dnd, &nd, sizeof(int), cudaMemcpyHostToDevice);
        check<<<(n + 255) / 256, 256>>>(dx, dt, n, tol, dnd);
        cudaMemcpy(&nd, dnd, sizeof(int), cudaMemcpyDeviceToHost);
        if (!nd) break;
    }
    cudaMemcpy(x, dx, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dt); cudaFree(dconv); cudaFree(dnd);
}
