// Case: an all-pairs kernel whose positions come through a parameter typed by a template type
// parameter (template <class Iterator> ... const Iterator pos), as libraries write kernels that
// take pointers or fancy iterators alike. The body subscripts it, so it is device memory: each
// block stages a tile of it in shared memory and every thread reuses the tile.
template <class Iterator>
__global__ void potential(const Iterator pos, float* energy, int n) {
  extern __shared__ float tile[];  // expect: MEM-02
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float xi = i < n ? pos[i] : 0.0f;
  float e = 0.0f;
  for (int start = 0; start < n; start += blockDim.x) {
    int j = start + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : 0.0f;
    __syncthreads();
    for (int k = 0; k < blockDim.x && start + k < n; ++k) e += fabsf(xi - tile[k]);
    __syncthreads();
  }
  if (i < n) energy[i] = e;
}

extern "C" void solution_compute(const float* pos, float* energy, int n) {
  potential<const float*><<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(pos, energy, n);
}
