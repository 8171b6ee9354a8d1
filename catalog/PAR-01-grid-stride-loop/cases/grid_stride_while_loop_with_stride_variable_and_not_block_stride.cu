// Case: grid stride while loop with stride variable and not block stride.
__global__ void a(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    while (i < n) {  // expect: PAR-01
        x[i] *= 2.0f;
        i += stride;
    }
}
__global__ void b(float* x, int n) {
    for (int c = threadIdx.x; c < n; c += blockDim.x) x[blockIdx.x * n + c] = 0.0f;
}
extern "C" void solution_compute(float* x, int n) {
    a<<<64, 256>>>(x, n);
    b<<<64, 256>>>(x, n);
}
