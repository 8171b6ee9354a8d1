// Case: the thread's position comes from a framework's helpers in a header the tagger lacks,
// named for what they return (dev::thread::global::id::x() is blockIdx.x * blockDim.x +
// threadIdx.x, dev::block::size::x() is blockDim.x). Indexing with them is stride 1 in
// threadIdx.x; a block-stride loop over a row is one row per block, not several outputs per
// thread.
#include <cuda_runtime.h>
#include "thread_position.h"

__global__ void scale(const float* in, float* out, float s, int n) {
    unsigned i = dev::thread::global::id::x();
    if (i < n) out[i] = in[i] * s;  // expect: MEM-01
}

__global__ void center_rows(const float* in, const float* mean, float* out, int cols) {
    const float* row = in + (size_t)blockIdx.x * cols;
    float* dst = out + (size_t)blockIdx.x * cols;
    float m = mean[blockIdx.x];
    for (unsigned c = dev::thread::local::id::x(); c < cols; c += dev::block::size::x())  // ok: PAR-02
        dst[c] = row[c] - m;  // expect: MEM-01
}

extern "C" void solution_compute(const float* in, const float* mean, float* out, int rows,
                                 int cols) {
    int n = rows * cols;
    scale<<<(n + 255) / 256, 256>>>(in, out, 2.0f, n);
    center_rows<<<rows, 256>>>(out, mean, out, cols);
    cudaDeviceSynchronize();
}
