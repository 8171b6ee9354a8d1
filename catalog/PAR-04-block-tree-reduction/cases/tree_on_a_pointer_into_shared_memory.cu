// Case: tree reductions on shared memory the kernel reaches through a pointer: HOOMD-blue
// declares it with HIP's HIP_DYNAMIC_SHARED(type, var) (hip/hip_runtime.h, absent) and reduces
// through Scalar *s = (Scalar *)&s_data[0]; ThunderSVM's get_block_min(values, index) reduces
// an argmin through a pointer parameter that its kernel passes shared memory to. Only arrays
// declared __shared__ in the same function counted, and the macro hid the declaration.
#include "hip/hip_runtime.h"  // not present
typedef char byte_t;

__device__ int get_block_min(const float *values, int *index) {
  int tid = threadIdx.x;
  index[tid] = tid;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset >>= 1) {  // expect: PAR-04
    if (tid < offset && values[index[tid + offset]] < values[index[tid]])
      index[tid] = index[tid + offset];
    __syncthreads();
  }
  return index[0];
}

__global__ void argmin_rows(const float *f, int *best, int n) {
  extern __shared__ int shared_mem[];
  float *vals = (float *)&shared_mem[blockDim.x];
  int *idx = shared_mem;
  vals[threadIdx.x] = f[blockIdx.x * n + threadIdx.x];  // expect: MEM-01
  int i = get_block_min(vals, idx);
  if (threadIdx.x == 0) best[blockIdx.x] = i;
}

__global__ void energy_tally(const float *e, float *partial, int n) {
  HIP_DYNAMIC_SHARED(byte_t, s_data);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? e[i] : 0.0f;  // expect: MEM-01
  float *sdata = (float *)&s_data[0];
  sdata[threadIdx.x] = x;
  __syncthreads();
  int offs = blockDim.x >> 1;
  while (offs > 0) {  // expect: PAR-04
    if (threadIdx.x < offs) sdata[threadIdx.x] += sdata[threadIdx.x + offs];
    offs >>= 1;
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

extern "C" void solution_compute(const float *f, int *best, int rows, int n, const float *e,
                                 float *partial, int m) {
  argmin_rows<<<rows, 256, 256 * (sizeof(int) + sizeof(float))>>>(f, best, n);
  energy_tally<<<(m + 255) / 256, 256, 256 * sizeof(float)>>>(e, partial, m);
}
