// Case: lanes stored as one vector.
#include <cuda_runtime.h>
__global__ void k(const float4* in, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = in[i];
    float src[4] = {v.x, v.y, v.z, v.w};
    float res[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) res[j] = src[j] * src[j] + 1.0f;  // expect: PAR-02
    out[i] = make_float4(res[0], res[1], res[2], res[3]);
}
__global__ void copy4(const float4* in, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = make_float4(in[i].x, in[i].y, in[i].z, in[i].w);
}
extern "C" void solution_compute(const float4* in, float4* out, int n4) {
    k<<<(n4 + 255) / 256, 256>>>(in, out, n4);
    copy4<<<(n4 + 255) / 256, 256>>>(in, out, n4);
}
