// Case: asynchronous copies into shared memory through cp.async macros from a header the file
// lacks (CP_ASYNC_CG and its commit/wait), as hand-written GEMM collections spell them.
#include "ptx_async.h"  // not present: CP_ASYNC_CG, CP_ASYNC_COMMIT_GROUP, CP_ASYNC_WAIT_GROUP

__global__ void stage_rows(const float4* in, float4* out, int n) {
    __shared__ float4 tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile[threadIdx.x]));
    CP_ASYNC_CG(dst, in + i, 16);  // expect: MEM-09
    CP_ASYNC_COMMIT_GROUP();  // expect: MEM-09
    CP_ASYNC_WAIT_GROUP(0);  // expect: MEM-09
    __syncthreads();
    float4 v = tile[(threadIdx.x + 1) % 256];
    if (i < n) out[i] = v;
}

extern "C" void solution_compute(const float4* in, float4* out, int n) {
    stage_rows<<<(n + 255) / 256, 256>>>(in, out, n);
}
