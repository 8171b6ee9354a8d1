// Case: bitset words yes index shifts and flag atomics no.
__global__ void k(const int* v, unsigned* bits, int* flag, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x >> 5;
    if (bits[v[i] >> 5] & (1u << (v[i] & 31))) out[i] = warp;  // expect: CMP-08
    atomicOr(flag, 1);
    out[i << 1] = __popc(bits[i]);  // expect: CMP-08
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(0, 0, 0, 0, n);
}
