// Case: atomic in constant false branch is ignored.
// ok: PAR-06
constexpr bool kAtomic = false;
__global__ void k(int* x, int* m) {
    if (kAtomic) { atomicMax(m, x[threadIdx.x]); }
    x[threadIdx.x] = 0;
}
extern "C" void solution_compute(int* x, int* m) { k<<<1, 32>>>(x, m); }
