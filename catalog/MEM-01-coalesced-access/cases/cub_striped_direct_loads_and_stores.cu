// Case: CUB's direct striped loads and stores (cub::LoadDirectStriped<BLOCK>(tid, ptr, items)):
// thread t moves ptr[t + i * BLOCK], so consecutive lanes touch consecutive elements. The
// helpers come from a header; the access is at the thread's rank, the first argument, and the
// block's offset in the pointer argument moves no lane.
#include <cub/cub.cuh>

template <int BLOCK, int ITEMS>
__global__ void square_tiles(const float* in, float* out) {
  float v[ITEMS];
  int offset = blockIdx.x * BLOCK * ITEMS;
  cub::LoadDirectStriped<BLOCK>(threadIdx.x, in + offset, v);  // expect: MEM-01
  for (int i = 0; i < ITEMS; ++i) v[i] *= v[i];
  cub::StoreDirectStriped<BLOCK>(threadIdx.x, out + offset, v);  // expect: MEM-01
}

extern "C" void solution_compute(const float* in, float* out, int n) {
  square_tiles<128, 4><<<n / 512, 128>>>(in, out);
}
