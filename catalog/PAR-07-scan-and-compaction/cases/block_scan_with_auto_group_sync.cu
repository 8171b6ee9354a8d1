// Case: a Hillis-Steele scan whose barrier is a cooperative-groups block sync on a group
// declared `auto` (auto g = cg::this_thread_block(); g.sync()).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void block_scan(const unsigned* in, unsigned* out) {
    __shared__ unsigned s[256];
    auto g = cg::this_thread_block();
    unsigned t = g.thread_rank();
    unsigned v = in[blockIdx.x * 256 + t];
    s[t] = v;
    for (unsigned j = 1; j < 256; j <<= 1) {  // expect: PAR-07
        g.sync();
        if (j <= t) v += s[t - j];
        g.sync();
        if (j <= t) s[t] = v;
    }
    out[blockIdx.x * 256 + t] = v;
}

extern "C" void solution_compute(const unsigned* in, unsigned* out, int n) {
    block_scan<<<n / 256, 256>>>(in, out);
}
