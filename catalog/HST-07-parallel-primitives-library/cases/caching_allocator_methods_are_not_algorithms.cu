// Case: a CUB caching allocator's methods (DeviceAllocate, DeviceFree) hand out memory; only
// the static members of a Device* class are device-wide algorithms.
#include <cub/cub.cuh>
#include <cub/util_allocator.cuh>

static cub::CachingDeviceAllocator pool(true);

__global__ void squares(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

extern "C" void solution_compute(const int* in, int* total, int n) {
    int* sq = nullptr;
    pool.DeviceAllocate((void**)&sq, n * sizeof(int));  // ok: HST-07
    squares<<<(n + 127) / 128, 128>>>(in, sq, n);
    void* tmp = nullptr;
    size_t bytes = 0;
    cub::DeviceReduce::Sum(tmp, bytes, sq, total, n);  // expect: HST-07
    pool.DeviceAllocate(&tmp, bytes);  // ok: HST-07
    cub::DeviceReduce::Sum(tmp, bytes, sq, total, n);  // expect: HST-07
    pool.DeviceFree(tmp);
    pool.DeviceFree(sq);
}
