// Case: front-to-back compositing that stops once every thread of the block is saturated:
// each thread sets done when its transmittance is negligible, and the block leaves the batch
// loop when __syncthreads_count(done) says all are done, skipping the remaining batches.
#define BLOCK 256

__global__ void composite(const float* alpha, const float* color, float* out, int n_layers,
                          int n_pix) {
  int pix = blockIdx.x * BLOCK + threadIdx.x;
  bool done = pix >= n_pix;
  float T = 1.0f, c = 0.0f;
  for (int base = 0; base < n_layers; base += 32) {
    int num_done = __syncthreads_count(done);
    if (num_done == BLOCK) break;  // expect: CMP-09
    for (int k = base; !done && k < min(base + 32, n_layers); ++k) {
      float a = alpha[k * n_pix + pix];
      c += T * a * color[k * n_pix + pix];
      T *= 1.0f - a;
      if (T < 1e-4f) done = true;
    }
  }
  if (pix < n_pix) out[pix] = c;
}

extern "C" void solution_compute(const float* alpha, const float* color, float* out,
                                 int n_layers, int n_pix) {
  composite<<<(n_pix + BLOCK - 1) / BLOCK, BLOCK>>>(alpha, color, out, n_layers, n_pix);
}
