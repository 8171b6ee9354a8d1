// Case: thrust on host data and block level cub are not primitives library.
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/fill.h>
#include <thrust/execution_policy.h>
#include <cub/cub.cuh>
__global__ void block_sum(const float* x, float* out) {
    typedef cub::BlockReduce<float, 128> R;
    __shared__ typename R::TempStorage t;
    float s = R(t).Sum(x[threadIdx.x]);
    if (threadIdx.x == 0) *out = s;
}
extern "C" void solution_compute(int n, float* d_x, float* h_x, unsigned* d_k, unsigned* d_k2) {
    thrust::device_ptr<float> p(d_x);
    thrust::fill(p, p + n, 0.0f);
    thrust::host_vector<float> h(h_x, h_x + n);
    thrust::sort(h.begin(), h.end());
    thrust::sort(thrust::host, h_x, h_x + n);
    thrust::sort(thrust::device, p, p + n);  // expect: HST-07
    block_sum<<<1, 128>>>(d_x, d_x);
    void* tmp = nullptr;
    size_t bytes = 0;
    cub::DeviceRadixSort::SortKeys(tmp, bytes, d_k, d_k2, n);  // expect: HST-07
}
