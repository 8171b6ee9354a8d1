// Case: residual in producing kernel is not fusion.
// ok: CMP-01
__global__ void jacobi(const float* u, float* un, float* diff, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    float v = 0.5f * (u[i - 1] + u[i + 1]);
    un[i] = v;
    atomicAdd(diff, (v - u[i]) * (v - u[i]));
}
extern "C" void solution_compute(float* a, float* b, int n) {
jacobi<<<1, 32>>>(a, b, b, n);
}
