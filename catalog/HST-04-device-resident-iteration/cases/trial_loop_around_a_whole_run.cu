// Case: a host loop that calls a whole run (launch, then read the result back) once per pass
// repeats the computation; it does not iterate one state on the device. A run that holds its
// own loop of launches still counts there.
__global__ void relax(float* x, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0.5f * (x[i] + b[i]);
}

__global__ void total(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

static float run_once(const float* b, float* sum, int n) {
    cudaMemset(sum, 0, sizeof(float));
    total<<<(n + 255) / 256, 256>>>(b, sum, n);
    float h = 0.0f;
    cudaMemcpy(&h, sum, sizeof(float), cudaMemcpyDeviceToHost);
    return h;
}

static void smooth(float* x, const float* b, int n, int steps) {
    for (int s = 0; s < steps; ++s)  // expect: HST-04
        relax<<<(n + 255) / 256, 256>>>(x, b, n);
}

extern "C" void solution_compute(float* x, const float* b, float* sum, float* result,
                                 int n, int trials) {
    float acc = 0.0f;
    for (int t = 0; t < trials; ++t)  // ok: HST-04
        acc += run_once(b, sum, n);
    smooth(x, b, n, 100);
    *result = acc / trials;
}
