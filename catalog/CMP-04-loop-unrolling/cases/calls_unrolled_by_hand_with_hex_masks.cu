// Case: a loop over the four bytes of a word written out by hand as four calls, and a
// neighbourhood test written out as eight calls that differ in hex bit masks. Copies were
// counted only when they assigned something, and hex constants were not blanked, so neither
// run was seen.
__device__ void cmp(float v, float n, unsigned &gt, unsigned &lt, unsigned bit) {
  if (v > n) gt |= bit;
  if (v < n) lt |= bit;
}

__device__ float nb(const float *img, int w, int x, int y, int dx, int dy) {
  return img[(y + dy - 1) * w + x + dx - 1];
}

__global__ void count_bytes(const unsigned *words, int n, int *hist) {
  __shared__ int shist[256];
  shist[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const unsigned data = words[i];
    atomicAdd(&shist[(data >> 0) & 0xFFU], 1);  // expect: CMP-04
    atomicAdd(&shist[(data >> 8) & 0xFFU], 1);
    atomicAdd(&shist[(data >> 16) & 0xFFU], 1);
    atomicAdd(&shist[(data >> 24) & 0xFFU], 1);
  }
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], shist[threadIdx.x]);
}

__global__ void extrema(const float *img, int w, int h, unsigned *flags) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1, y = blockIdx.y + 1;
  if (x >= w - 1 || y >= h - 1) return;
  float v = img[y * w + x];
  unsigned gt = 0, lt = 0;
  cmp(v, nb(img, w, x, y, 0, 0), gt, lt, 0x00000001);  // expect: CMP-04
  cmp(v, nb(img, w, x, y, 1, 0), gt, lt, 0x00000002);
  cmp(v, nb(img, w, x, y, 2, 0), gt, lt, 0x00000004);
  cmp(v, nb(img, w, x, y, 0, 1), gt, lt, 0x00000008);
  cmp(v, nb(img, w, x, y, 2, 1), gt, lt, 0x00000010);
  cmp(v, nb(img, w, x, y, 0, 2), gt, lt, 0x00000020);
  cmp(v, nb(img, w, x, y, 1, 2), gt, lt, 0x00000040);
  cmp(v, nb(img, w, x, y, 2, 2), gt, lt, 0x00000080);
  flags[y * w + x] = gt == 0xFF || lt == 0xFF;
}

extern "C" void solution_compute(const unsigned *words, int n, int *hist, const float *img, int w,
                                 int h, unsigned *flags) {
  count_bytes<<<64, 256>>>(words, n, hist);
  extrema<<<dim3((w + 127) / 128, h), 128>>>(img, w, h, flags);
}
