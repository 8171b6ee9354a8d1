// Case: a row's sum of squares reduced across the block by a helper from a header the file
// lacks (in place, `reduce::block<Add>(tb, v)`), then consumed by a second pass that loads the
// weights through a load helper: norm and scale in one kernel. The same helper on a value
// that is only stored (no later pass) is one stage.
#include "reduction_utils.h"  // not present: reduce::block, mem_access::load_global

__global__ void rms_scale(float* out, const float* x, const float* w, int cols) {  // expect: CMP-01
    const float* row = x + blockIdx.x * cols;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) ss += row[c] * row[c];
    reduce::block<Add>(ss);
    float inv = rsqrtf(ss / cols + 1e-6f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float wc;
        mem_access::load_global<4>(&wc, w + c);
        out[blockIdx.x * cols + c] = row[c] * inv * wc;
    }
}

__global__ void row_sums(float* sums, const float* x, int cols) {
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[blockIdx.x * cols + c];
    reduce::block<Add>(s);
    if (threadIdx.x == 0) sums[blockIdx.x] = s;
}

extern "C" void solution_compute(float* out, float* sums, const float* x, const float* w,
                                 int rows, int cols) {
    rms_scale<<<rows, 256>>>(out, x, w, cols);
    row_sums<<<rows, 256>>>(sums, x, cols);
}
