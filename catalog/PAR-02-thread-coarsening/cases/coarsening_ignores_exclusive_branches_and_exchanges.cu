// Case: coarsening ignores exclusive branches and exchanges.
// ok: PAR-02
__global__ void edge(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) out[0] = in[0];
    else out[i] = in[i] - in[i - 1];
}
__global__ void swap_pairs(float* v, int j) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i ^ j;
    if (p > i && v[i] > v[p]) { float t = v[i]; v[i] = v[p]; v[p] = t; }
}
extern "C" void solution_compute(float* v, int n) {
    edge<<<n / 256, 256>>>(v, v, n);
    swap_pairs<<<n / 256, 256>>>(v, 1);
}
