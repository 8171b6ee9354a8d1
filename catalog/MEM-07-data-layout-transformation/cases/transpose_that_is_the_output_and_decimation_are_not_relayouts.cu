// Case: transpose that is the output and decimation are not relayouts.
// ok: MEM-07
__global__ void tr(const float* b, float* bt, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    bt[c * n + r] = b[r * n + c];
}
__global__ void half(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[2 * i];
}
extern "C" void solution_compute(float* a, float* b, int n) {
tr<<<1, 32>>>(a, b, n);
half<<<1, 32>>>(a, b, n);
}
