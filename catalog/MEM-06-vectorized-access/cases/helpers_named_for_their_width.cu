// Case: packed loads and stores through helpers from a header the file lacks, named for the
// bits they move (llm.c's load128cs and store128): each call is a 128-bit access at its address
// argument.
#include "packed128.cuh"  // not present: f128, load128cs, store128

__global__ void add(float* out, const float* a, const float* b, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i < n) {
    f128 x = load128cs(a + i);  // expect: MEM-06
    f128 y = load128cs(b + i);  // expect: MEM-06
    f128 r;
    for (int k = 0; k < 4; ++k) r[k] = x[k] + y[k];
    store128(out + i, r);  // expect: MEM-06
  }
}

extern "C" void solution_compute(float* out, const float* a, const float* b, int n) {
  add<<<(n / 4 + 255) / 256, 256>>>(out, a, b, n);
}
