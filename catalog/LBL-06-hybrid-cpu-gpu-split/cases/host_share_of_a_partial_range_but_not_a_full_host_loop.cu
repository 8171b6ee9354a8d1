// Case: host share of a partial range but not a full host loop.
__global__ void f(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 2.0f + 1.0f;
}
extern "C" void solution_compute(const float* x, float* y, int n) {
    int gpu_n = n - n % 256;
    f<<<gpu_n / 256, 256>>>(x, y, gpu_n);
    for (int i = gpu_n; i < n; ++i) y[i] = x[i] * 2.0f + 1.0f;  // expect: LBL-06
    for (int i = 0; i < n; ++i) y[i] = x[i];
}
