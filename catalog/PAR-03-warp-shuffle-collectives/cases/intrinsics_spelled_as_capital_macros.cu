// Case: warp shuffles and math intrinsics written through a project's macros in capitals
// (SHFL_DOWN, SHFL, RSQRT), defined in a header the file does not bring (codes that compile
// their kernels at run time for single or double precision spell them so). A macro named as an
// intrinsic stands for it; LOG is named for the accurate logf and is not a fast intrinsic.
#include "mdlib/precision.h"  // not present

__global__ void energies(const float* r2, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) {
        float inv = RSQRT(r2[i]);  // expect: CMP-05
        e = inv + LOG(r2[i]);  // ok: CMP-05
    }
    for (int offset = 16; offset > 0; offset /= 2)
        e += SHFL_DOWN(e, offset);  // expect: PAR-03
    e = SHFL(e, 0);  // expect: PAR-03
    if (threadIdx.x % 32 == 0 && i < n)
        out[i / 32] = e;
}

extern "C" void solution_compute(const float* r2, float* out, int n) {
    energies<<<(n + 255) / 256, 256>>>(r2, out, n);
}
