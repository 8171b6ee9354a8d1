#include <cuda_runtime.h>

__device__ unsigned int lcg(unsigned int& state) {
    state = state * 1664525u + 1013904223u;
    return state;
}

// Each thread counts its own hits in a register over many samples and adds the
// count to the global total once.
__global__ void pi_kernel(unsigned long long* hits, int samples_per_thread, unsigned int seed) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int state = seed ^ (tid * 747796405u);
    unsigned long long local_hits = 0;
    for (int s = 0; s < samples_per_thread; ++s) {
        float x = (lcg(state) & 0xffffff) / 16777216.0f;
        float y = (lcg(state) & 0xffffff) / 16777216.0f;
        if (x * x + y * y <= 1.0f) local_hits++;
    }
    atomicAdd(hits, local_hits);  // expect: PAR-05
}

extern "C" void solution_compute(int threads_total, int samples_per_thread, unsigned int seed,
                                 double* pi) {
    unsigned long long* dh;
    unsigned long long h = 0;
    cudaMalloc(&dh, sizeof(unsigned long long));
    cudaMemset(dh, 0, sizeof(unsigned long long));
    pi_kernel<<<threads_total / 256, 256>>>(dh, samples_per_thread, seed);
    cudaMemcpy(&h, dh, sizeof(h), cudaMemcpyDeviceToHost);
    *pi = 4.0 * (double)h / ((double)(threads_total / 256) * 256 * samples_per_thread);
    cudaFree(dh);
}
