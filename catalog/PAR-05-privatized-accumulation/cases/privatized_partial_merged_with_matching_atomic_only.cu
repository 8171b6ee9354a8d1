// Case: privatized partial merged with matching atomic only.
__global__ void total(const float* x, float* sum, int n) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i];
    atomicAdd(sum, acc);  // expect: PAR-05
}
__global__ void nearest(const float* d, int m, int* best) {
    int dist = 0;
    for (int k = 0; k < m; ++k) dist += (int)d[threadIdx.x * m + k];
    atomicMin(best, dist);
}
extern "C" void solution_compute(const float* x, float* s, int* b, int n) {
    total<<<64, 256>>>(x, s, n);
    nearest<<<1, 64>>>(x, n, b);
}
