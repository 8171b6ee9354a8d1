// Case: a flat index split into mixed-radix digits in place (rem = i % (P * K * D); then
// rem = rem % (K * D); d = rem % D) with the last digit fastest in the address: consecutive
// lanes read consecutive elements. The second, self-referential definition of rem made its
// stride unknown. The first kernel, in which each thread walks its own small record, stays
// strided; the second is coalesced by itself, which counts.
__global__ void per_point(const float* p, float* out, int P, int D) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= P) return;
  float s = 0.0f;
  for (int d = 0; d < D; ++d) s += p[n * D + d] * p[n * D + d];
  for (int d = 0; d < D; ++d) out[n * D + d] = p[n * D + d] / s;
}

__global__ void grad(const float* g, const float* p, float* gp, int N, int P, int K, int D) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int i = tid; i < N * P * K * D; i += stride) {
    int n = i / (P * K * D);
    int rem = i % (P * K * D);
    int p1 = rem / (K * D);
    rem = rem % (K * D);
    int d = rem % D;
    gp[n * P * D + p1 * D + d] = g[i] * p[n * P * D + p1 * D + d];  // expect: MEM-01
  }
}

extern "C" void solution_compute(const float* g, const float* p, float* gp, float* out,
                                 int N, int P, int K, int D) {
  per_point<<<(P + 255) / 256, 256>>>(p, out, P, D);
  grad<<<64, 256>>>(g, p, gp, N, P, K, D);
}
