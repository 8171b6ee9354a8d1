// Case: a block per (image, tile) item, found by a block-level grid-stride loop; the lanes step
// by the kernel's template parameter TPB, which is the block size (named in __launch_bounds__ and
// passed as the block at the launch), and reach the element through row = i / TILE and
// col = i % TILE computed in the body. The step was not read as blockDim.x, and the element was
// not seen as the lane's because the loop variable is not in its subscript.
#define TILE 32

template <unsigned TPB>
__launch_bounds__(TPB) __global__ void tile_norms(int N, int C, int HW, const float *in,
                                                  float *norms) {
  const int tiles = (HW + TILE - 1) / TILE;
  for (int n = blockIdx.x; n < N * tiles; n += gridDim.x) {
    const float *image = in + (n / tiles) * C * HW;
    __shared__ float sum[TILE];
    if (threadIdx.x < TILE) sum[threadIdx.x] = 0.0f;
    __syncthreads();
    float local = 0.0f;
    for (int i = threadIdx.x; i < C * TILE; i += TPB) {  // expect: LBL-02
      int row = i / TILE;
      int col = (n % tiles) * TILE + i % TILE;
      if (col < HW) local += image[row * HW + col] * image[row * HW + col];
    }
    atomicAdd(&sum[threadIdx.x % TILE], local);
    __syncthreads();
    if (threadIdx.x < TILE) norms[n * TILE + threadIdx.x] = sqrtf(sum[threadIdx.x]);
    __syncthreads();
  }
}

extern "C" void solution_compute(int N, int C, int HW, const float *in, float *norms) {
  constexpr unsigned BS = 256;
  const int GS = 80;
  tile_norms<BS><<<GS, BS>>>(N, C, HW, in, norms);
}
