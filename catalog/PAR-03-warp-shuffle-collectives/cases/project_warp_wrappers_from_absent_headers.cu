// Case: warp collectives through a project's own wrappers, defined in headers the file does
// not bring (PopSift's popsift::shuffle and popsift::ballot, HOOMD-blue's
// hoomd::detail::WarpScan<T, N>().Broadcast / ExclusiveSum). They were unknown calls, so no
// warp collective was seen.
#include "popsift/common/assist.h"  // not present
#include "hoomd/WarpTools.cuh"      // not present

__global__ void count_and_scan(const int *in, int *counter, int *out) {
  bool flag = in[blockIdx.x * blockDim.x + threadIdx.x] > 0;  // expect: MEM-01
  unsigned mask = popsift::ballot(flag);
  int base = 0;
  if (threadIdx.x == 0) base = atomicAdd(counter, __popc(mask));
  base = popsift::shuffle(base, 0);  // expect: PAR-03
  unsigned char offset(0), total(0);
  hoomd::detail::WarpScan<unsigned char, 32>().ExclusiveSum(flag, offset, total);  // expect: PAR-03
  if (flag) out[base + offset] = blockIdx.x * blockDim.x + threadIdx.x;
}

extern "C" void solution_compute(const int *in, int *counter, int *out, int n) {
  count_and_scan<<<n / 32, 32>>>(in, counter, out);
}
