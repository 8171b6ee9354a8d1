// Case: a molecular-dynamics code's precision-neutral vector types (HOOMD-blue's Scalar4 from
// HOOMDMath.h, OpenMM's and UAMMD's real4) from a header the file lacks. Their width was
// unknown, so a thread's one 16-byte load of its particle was not seen as a vector access.
// Scalar3 stays out: 12 bytes are not one vector load.
#include "hoomd/HOOMDMath.h"  // not present

__global__ void kick(Scalar4 *vel, const Scalar3 *accel, Scalar dt, unsigned n) {
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  Scalar4 v = vel[idx];  // expect: MEM-06, MEM-01
  Scalar3 a = accel[idx];  // expect: MEM-01
  v.x += a.x * dt;
  v.y += a.y * dt;
  v.z += a.z * dt;
  vel[idx] = v;  // expect: MEM-06, MEM-01
}

extern "C" void solution_compute(Scalar4 *vel, const Scalar3 *accel, Scalar dt, unsigned n) {
  kick<<<(n + 255) / 256, 256>>>(vel, accel, dt, n);
}
