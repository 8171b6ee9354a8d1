// Case: launches and Thrust calls go through a library's wrapper macros from a header the
// tagger lacks, whose first argument is what they run: RUN_KERNEL((k<T>), grid, block, ...)
// launches k, ON_DEVICE(thrust::sort, ...) calls thrust::sort. The scratch buffer allocated
// before the loop is reused by every pass's launch, and the sort is a library primitive.
#include <cuda_runtime.h>
#include <thrust/sort.h>
#include "launch_wrappers.h"

template <typename T>
__global__ void halve_pairs(const T* in, T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[2 * i] + in[2 * i + 1];
}

extern "C" void solution_compute(float* data, int n) {
    float* scratch;
    cudaMalloc(&scratch, n / 2 * sizeof(float));  // expect: HST-01
    ON_DEVICE(thrust::sort, data, data + n);  // expect: HST-07
    for (int m = n / 2; m >= 1; m /= 2) {
        RUN_KERNEL((halve_pairs<float>), (m + 255) / 256, 256, data, scratch, m);
        cudaMemcpy(data, scratch, m * sizeof(float), cudaMemcpyDeviceToDevice);
    }
    cudaFree(scratch);
}
