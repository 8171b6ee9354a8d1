// Case: frontier append with direct index in host loop but not one pass filter.
// ok: LBL-03
__global__ void pick(const float* x, int n, int* idx, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0) idx[atomicAdd(count, 1)] = i;
}
extern "C" void solution_compute(const float* x, int n, int* idx, int* count) {
    pick<<<n / 256, 256>>>(x, n, idx, count);
}
