// Case: the vector type is named through a typedef and a using-alias: vec4 and pair_t are float4
// and float2, so their loads and stores are 128- and 64-bit accesses.
#include <cuda_runtime.h>

typedef float4 vec4;
using pair_t = float2;

__global__ void add_bias4(const float* in, float* out, float bias, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const vec4* src = reinterpret_cast<const vec4*>(in);
    vec4* dst = reinterpret_cast<vec4*>(out);
    if (i < n4) {
        vec4 v = src[i];  // expect: MEM-06
        v.x += bias; v.y += bias; v.z += bias; v.w += bias;
        dst[i] = v;  // expect: MEM-06
    }
}

__global__ void swap_pairs(const float* in, float* out, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        pair_t p = reinterpret_cast<const pair_t*>(in)[i];  // expect: MEM-06
        reinterpret_cast<pair_t*>(out)[i] = make_float2(p.y, p.x);  // expect: MEM-06
    }
}

extern "C" void solution_compute(const float* in, float* out, int n) {
    add_bias4<<<(n / 4 + 255) / 256, 256>>>(in, out, 1.0f, n / 4);
    swap_pairs<<<(n / 2 + 255) / 256, 256>>>(out, out, n / 2);
    cudaDeviceSynchronize();
}
