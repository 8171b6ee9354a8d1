// Case: a block-stride loop whose step is a local named from blockDim.x
// (step = blockDim.x; for (i = threadIdx.x; i < n; i += step)) is not a thread's own chunk:
// each thread takes every step-th element, as with blockDim.x written in the header.
// ok: PAR-02
__global__ void scale_rows(const float* in, float* out, int n) {
  const int step = blockDim.x;
  const float* row = in + blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += step) out[blockIdx.x * n + i] = 2.0f * row[i];
}

extern "C" void solution_compute(const float* in, float* out, int rows, int n) {
  scale_rows<<<rows, 256>>>(in, out, n);
}
