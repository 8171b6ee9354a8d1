// Case: thrust count in the loop condition is a round trip.
// ok: HST-04
#include <cuda_runtime.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
__global__ void sweep(int* active, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && active[i]) active[i] = (i % 3 == 0);
}
extern "C" void solution_compute(int n, int* d_active) {
    thrust::device_ptr<int> p(d_active);
    while (thrust::count(p, p + n, 1) > 0)  // expect: HST-07, AP-02
        sweep<<<(n + 255) / 256, 256>>>(d_active, n);
}
