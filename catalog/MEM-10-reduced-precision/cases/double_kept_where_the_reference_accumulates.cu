// Case: the port keeps double where it accumulates, as the reference (norm_reference.c) does.
// reference: norm_reference.c
__global__ void sq(const float* x, int n, float* part) {
    double s = 0.0;  // ok: MEM-10
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];
    part[threadIdx.x] = s;
}
extern "C" void solution_compute(const float* x, int n, float* part) {
    sq<<<1, 256>>>(x, n, part);
}
