// histogram: one thread per key, each adds 1 to its bin with a global atomicAdd.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e = (call);                                                      \
        if (e != cudaSuccess) {                                                      \
            fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e),     \
                    __LINE__);                                                       \
            goto cleanup;                                                            \
        }                                                                            \
    } while (0)

__global__ void histogram_kernel(const int* keys, int n, unsigned int* hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[keys[i]], 1);
}

extern "C" void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    int* d_keys = NULL;
    unsigned int* d_hist = NULL;
    size_t key_bytes = (size_t)(n > 0 ? n : 0) * sizeof(int);
    size_t hist_bytes = (size_t)num_bins * sizeof(unsigned int);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;

    if (num_bins <= 0) return;

    CHECK(cudaMalloc((void**)&d_keys, key_bytes + sizeof(int)));
    CHECK(cudaMalloc((void**)&d_hist, hist_bytes));
    CHECK(cudaMemcpy(d_keys, keys, key_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, hist_bytes));

    if (n > 0) {
        histogram_kernel<<<blocks, threads>>>(d_keys, n, d_hist);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }

    CHECK(cudaMemcpy(hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_keys);
    cudaFree(d_hist);
}
