// Case: small shared arrays written and read around a barrier, and a shuffle that only
// broadcasts lane 0's value (PopSift's orientation kernel). The two-level rule counted any
// shuffle as the warp stage of a reduction; a broadcast from a fixed lane combines nothing.
// The kernel below it is a real two-level reduction and still counts.
__global__ void best_bin(const float *hist_in, float *best) {
  __shared__ float hist[64];
  __shared__ float score[64];
  hist[threadIdx.x] = hist_in[blockIdx.x * 64 + threadIdx.x];  // expect: MEM-01
  __syncthreads();
  int prev = (threadIdx.x + 63) % 64, next = (threadIdx.x + 1) % 64;
  score[threadIdx.x] = hist[threadIdx.x] > fmaxf(hist[prev], hist[next]) ? hist[threadIdx.x] : 0.f;
  __syncthreads();
  float top = __shfl_sync(0xffffffff, score[threadIdx.x], 0);
  best[blockIdx.x * 64 + threadIdx.x] = score[threadIdx.x] >= 0.8f * top;  // expect: MEM-01
}

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[32];  // expect: PAR-04
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];  // expect: MEM-01
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

extern "C" void solution_compute(const float *hist_in, float *best, int blocks, const float *in,
                                 float *out, int n) {
  best_bin<<<blocks, 64>>>(hist_in, best);
  block_sum<<<128, 256>>>(in, out, n);
}
