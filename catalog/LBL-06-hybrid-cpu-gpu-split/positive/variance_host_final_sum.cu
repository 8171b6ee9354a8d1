#include <cuda_runtime.h>

#define BLOCK 256

// Sum and sum of squares per block on the device; the few hundred block
// partials are combined on the host.
__global__ void moments(const double* x, int n, double* ps, double* ps2) {
    __shared__ double s[BLOCK], s2[BLOCK];
    double a = 0.0, b = 0.0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
        a += x[i];
        b += x[i] * x[i];
    }
    s[threadIdx.x] = a;
    s2[threadIdx.x] = b;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            s[threadIdx.x] += s[threadIdx.x + k];
            s2[threadIdx.x] += s2[threadIdx.x + k];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ps[blockIdx.x] = s[0];
        ps2[blockIdx.x] = s2[0];
    }
}

extern "C" void solution_compute(int n, const double* x, double* mean, double* var) {
    const int blocks = 264;
    double *dx, *dps, *dps2;
    cudaMalloc(&dx, n * sizeof(double));
    cudaMalloc(&dps, blocks * sizeof(double));
    cudaMalloc(&dps2, blocks * sizeof(double));
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    moments<<<blocks, BLOCK>>>(dx, n, dps, dps2);
    double hs[blocks], hs2[blocks];
    cudaMemcpy(hs, dps, blocks * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(hs2, dps2, blocks * sizeof(double), cudaMemcpyDeviceToHost);
    double s = 0.0, s2 = 0.0;
    for (int b = 0; b < blocks; ++b) {  // expect: LBL-06
        s += hs[b];
        s2 += hs2[b];
    }
    *mean = s / n;
    *var = s2 / n - (*mean) * (*mean);
    cudaFree(dx);
    cudaFree(dps);
    cudaFree(dps2);
}
