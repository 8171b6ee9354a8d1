// Case: partials summed by one thread are a reduction not a stage.
// ok: CMP-01
__global__ void rowdot(const float* a, const float* x, float* y, int cols) {
    __shared__ float part[128];
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s += a[blockIdx.x * cols + j] * x[j];
    part[threadIdx.x] = s * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 128; ++k) t += part[k];
        y[blockIdx.x] = t;
    }
}
extern "C" void solution_compute(float* a, float* b, int n) {
rowdot<<<n, 128>>>(a, a, b, n);
}
