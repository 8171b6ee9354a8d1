// Case: the update kernel is launched by a library helper from a header the tagger lacks
// (launch_linear(k<T>, 0, stream, n, ...) picks the grid). Handing the kernel to the helper
// launches it, so the device does the per-element work and the host's short loop over the
// segment sizes is bookkeeping, not the answer computed on the host.
// ok: AP-05
#include <cuda_runtime.h>
#include "launch_helpers.h"

template <typename T>
__global__ void scaled_update(unsigned n, T* weights, const T* grads, const float* scale) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) weights[i] -= (T)(scale[0] * (float)grads[i]);
}

extern "C" void solution_compute(float* weights, const float* grads, const float* scale,
                                 const unsigned* sizes, int segments, cudaStream_t stream) {
    unsigned total = 0;
    for (int s = 0; s < segments; ++s) total += sizes[s];
    launch_linear(scaled_update<float>, 0, stream, total, weights, grads, scale);
}
