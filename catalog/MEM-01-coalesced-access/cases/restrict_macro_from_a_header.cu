// Case: pointers declared with a library's restrict macro from a header the file lacks
// (`const float * LIB_RESTRICT src = ...`); the grammar read the macro as the name and lost the
// pointers, so no access through them was seen.
#include "lib_config.h"  // not present: #define LIB_RESTRICT __restrict__

__global__ void scale(const float* src_ptr, float* dst_ptr, float s, int n) {
    const float * LIB_RESTRICT src = src_ptr;
    float * LIB_RESTRICT dst = dst_ptr;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = s * src[i];  // expect: MEM-01
}

extern "C" void solution_compute(const float* src, float* dst, float s, int n) {
    scale<<<(n + 255) / 256, 256>>>(src, dst, s, n);
}
