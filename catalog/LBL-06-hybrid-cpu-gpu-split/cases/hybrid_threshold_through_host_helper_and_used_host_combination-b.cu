// Case: hybrid threshold through host helper and used host combination.
__global__ void part(const float* x, float* p, int n) { p[blockIdx.x] = x[blockIdx.x]; }
extern "C" void solution_compute(const float* x, float* out, int n) {
    float *dx, *dp, h[64];
    part<<<64, 256>>>(dx, dp, n);
    cudaMemcpy(h, dp, sizeof(h), cudaMemcpyDeviceToHost);
    float s = 0.0f;
    for (int b = 0; b < 64; ++b) s += h[b];  // expect: LBL-06
    *out = s;
}
