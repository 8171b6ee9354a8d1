// Case: device vector and cast allocations are followed into the loop.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
__global__ void step(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 0.5f; }
extern "C" void solution_compute(int n, int iters) {
    thrust::device_vector<float> d(n, 1.0f), unused(n);  // expect: HST-01
    float* w;
    cudaMalloc(reinterpret_cast<void**>(&w), n * sizeof(float));  // expect: HST-01
    for (int t = 0; t < iters; ++t) {
        step<<<1, 256>>>(thrust::raw_pointer_cast(d.data()), n);
        step<<<1, 256>>>(w, n);
    }
}
