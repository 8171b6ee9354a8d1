// Case: the kernels are launched through a file-scope table of function pointers: each one the
// table names is reachable from the code that launches through the table.
#include <cuda_runtime.h>

__global__ void add_one(float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)  // expect: PAR-01
        x[i] += 1.0f;
}

__global__ void halve(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 0.5f;
}

__global__ void never_listed(float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)  // ok: PAR-01
        x[i] = 0.0f;
}

typedef void (*step_fn)(float*, int);
static const step_fn steps[] = {add_one, halve};

extern "C" void solution_compute(float* x, int n) {
    for (int s = 0; s < 2; ++s) {
        steps[s]<<<(n + 255) / 256, 256>>>(x, n);
    }
    cudaDeviceSynchronize();
}
