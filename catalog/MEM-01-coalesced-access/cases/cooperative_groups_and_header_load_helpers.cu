// Case: thread positions read through cooperative groups (thread_index(), thread_rank()), and
// global memory moved by load/store helpers from a header this file does not bring (their
// names and their width in bytes say what they do). All lanes touch consecutive elements.
#include <cooperative_groups.h>
#include "memory_access_utils.h"  // not present: mem_access::load_global / store_global
namespace cg = cooperative_groups;

__global__ void scale(float* out, const float* in, int n) {
    cg::thread_block tb = cg::this_thread_block();
    int i = tb.group_index().x * tb.group_dim().x + tb.thread_index().x;
    if (i < n) out[i] = 2.0f * in[i];  // expect: MEM-01
}

__global__ void copy_rank(float* out, const float* in, int n) {
    auto block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + block.thread_rank();
    if (i < n) out[i] = in[i];  // expect: MEM-01
}

template <typename T>
__global__ void copy_vectors(T* out, const T* in, int n) {
    constexpr int per_load = 16 / sizeof(T);
    int off = (blockIdx.x * blockDim.x + threadIdx.x) * per_load;
    T buf[per_load];
    mem_access::load_global<16>(buf, in + off, off < n);  // expect: MEM-01, MEM-06
    mem_access::store_global<16>(out + off, buf);  // expect: MEM-01, MEM-06
}

extern "C" void solution_compute(float* out, const float* in, int n) {
    scale<<<(n + 255) / 256, 256>>>(out, in, n);
    copy_rank<<<(n + 255) / 256, 256>>>(out, in, n);
    copy_vectors<float><<<(n / 4 + 255) / 256, 256>>>(out, in, n);
}
