// Case: needs both const and restrict and device code.
__global__ void k(const float* __restrict__ x,  // expect: MEM-04
                  float* __restrict__ y,
                  const float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + __ldg(&z[i]);  // expect: MEM-04
}
static void host(const float* __restrict__ p, int n) { (void)p; (void)n; }
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b, a, n);
host(a, n);
}
