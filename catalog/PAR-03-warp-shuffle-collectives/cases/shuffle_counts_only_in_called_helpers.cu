// Case: shuffle counts only in called helpers.
__device__ float used(float v) { return v + __shfl_xor_sync(0xffffffff, v, 1); }  // expect: PAR-03
__device__ float unused(float v) { return v + __shfl_down_sync(0xffffffff, v, 1); }
__global__ void k(float* x) {
    unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
    x[threadIdx.x] = used(x[threadIdx.x]) + m;
}
extern "C" void solution_compute(float* x, int n) { k<<<1, 32>>>(x); }
