// Case: the two #ifdef branches open the kernel's main block differently (a grid-stride loop
// with the build option, a bounds check without it), so the braces balance only once a
// configuration is chosen, as the build's -D options choose it. The file is read with its build
// options defined: the grid-stride loop counts.
__global__ void scale_add(const float* x, float* y, float a, int n) {
    int start = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef GRID_STRIDE
    for (int i = start; i < n; i += blockDim.x * gridDim.x) {  // expect: PAR-01
#else
    int i = start;
    if (i < n) {
#endif
        float v = a * x[i];
#ifdef ACCUMULATE
        v += y[i];
#endif
        y[i] = v;
    }
}

extern "C" void solution_compute(const float* x, float* y, float a, int n) {
    scale_add<<<128, 256>>>(x, y, a, n);
}
