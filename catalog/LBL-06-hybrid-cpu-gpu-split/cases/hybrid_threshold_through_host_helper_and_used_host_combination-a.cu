// Case: hybrid threshold through host helper and used host combination.
__global__ void sq(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
static void cpu_sq(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] * x[i];
}
extern "C" void solution_compute(const float* x, float* y, int n) {
    if (n <= 0) return;
    if (n < 4096) { cpu_sq(x, y, n); return; }  // expect: LBL-06
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    sq<<<(n + 255) / 256, 256>>>(dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    float check = 0.0f;
    for (int i = 0; i < n; ++i) check += y[i];
    (void)check;
}
