// Case: Caffe's and PyTorch's CUDA_KERNEL_LOOP(i, n) from a header the file lacks
// (caffe/util/device_alternate.hpp, ATen/cuda/detail/KernelUtils.h). The grammar read the
// invocation as a call and the block after it as a stray statement: no loop and no access was
// seen. The model now reads the macro with its usual definition, a grid-stride loop.
#include "caffe/util/device_alternate.hpp"  // not present

__global__ void relu_forward(const int n, const float* in, float* out, float slope) {
  CUDA_KERNEL_LOOP(index, n) {  // expect: PAR-01
    out[index] = in[index] > 0 ? in[index] : in[index] * slope;  // expect: MEM-01
  }
}

extern "C" void solution_compute(const float* in, float* out, int n) {
  relu_forward<<<(n + 511) / 512, 512>>>(n, in, out, 0.1f);
}
