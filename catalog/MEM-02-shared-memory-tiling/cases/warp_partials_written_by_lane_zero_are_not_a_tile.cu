// Case: warp partials written by lane zero are not a tile.
// ok: MEM-02
__global__ void dot(const float* a, const float* b, float* out, int n) {
    __shared__ float part[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] * b[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float w = part[threadIdx.x];
        if (threadIdx.x == 0) atomicAdd(out, w);
    }
}
extern "C" void solution_compute(float* a, float* b, int n) {
dot<<<1, 256>>>(a, a, b, n);
}
