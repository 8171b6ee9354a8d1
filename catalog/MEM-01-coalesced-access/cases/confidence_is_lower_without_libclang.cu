// Case: confidence is lower without libclang.
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];  // expect: MEM-01
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b, n);
}
