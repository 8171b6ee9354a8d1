// k nearest landmarks per query: everything is allocated and freed inside the request loop.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void distances_to(const float* lx, const float* ly, int m, float qx, float qy, float* d) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float dx = lx[j] - qx, dy = ly[j] - qy;
        d[j] = dx * dx + dy * dy;
    }
}

__global__ void block_min(const float* d, int m, float* best) {
    __shared__ float s[256];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (j < m) ? d[j] : FLT_MAX;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] = fminf(s[threadIdx.x], s[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicMin((int*)best, __float_as_int(s[0]));
}

extern "C" void solution_compute(int m, const float* lx, const float* ly, int q,
                                 const float* qx, const float* qy, float* nearest) {
    int threads = 256, blocks = (m + threads - 1) / threads;
    for (int k = 0; k < q; ++k) {
        float *d_lx, *d_ly, *d_d, *d_best;
        cudaMalloc(&d_lx, m * sizeof(float));  // ok: HST-01
        cudaMalloc(&d_ly, m * sizeof(float));  // ok: HST-01
        cudaMalloc(&d_d, m * sizeof(float));  // ok: HST-01
        cudaMalloc(&d_best, sizeof(float));  // ok: HST-01
        cudaMemcpy(d_lx, lx, m * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(d_ly, ly, m * sizeof(float), cudaMemcpyHostToDevice);
        float init = FLT_MAX;
        cudaMemcpy(d_best, &init, sizeof(float), cudaMemcpyHostToDevice);
        distances_to<<<blocks, threads>>>(d_lx, d_ly, m, qx[k], qy[k], d_d);
        block_min<<<blocks, threads>>>(d_d, m, d_best);
        cudaMemcpy(&nearest[k], d_best, sizeof(float), cudaMemcpyDeviceToHost);
        cudaFree(d_lx);
        cudaFree(d_ly);
        cudaFree(d_d);
        cudaFree(d_best);
    }
}
