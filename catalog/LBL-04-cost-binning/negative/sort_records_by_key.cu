#include <cuda_runtime.h>
#include <thrust/sort.h>
#include <thrust/execution_policy.h>

// The task is to sort records by their given keys: sort_by_key is the answer
// itself, not a binning step that groups work.
extern "C" void solution_compute(int n, const unsigned int* keys, const float* values,
                                 unsigned int* sorted_keys, float* sorted_values) {
    unsigned int* dk;
    float* dv;
    cudaMalloc(&dk, n * sizeof(unsigned int));
    cudaMalloc(&dv, n * sizeof(float));
    cudaMemcpy(dk, keys, n * sizeof(unsigned int), cudaMemcpyHostToDevice);
    cudaMemcpy(dv, values, n * sizeof(float), cudaMemcpyHostToDevice);
    thrust::sort_by_key(thrust::device, dk, dk + n, dv);  // ok: LBL-04
    cudaMemcpy(sorted_keys, dk, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaMemcpy(sorted_values, dv, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dk);
    cudaFree(dv);
}
