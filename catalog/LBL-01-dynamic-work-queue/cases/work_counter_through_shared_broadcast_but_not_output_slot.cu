// Case: work counter through shared broadcast but not output slot.
__global__ void rows(int* next, int h, int w, int* out) {
    __shared__ int row;
    for (;;) {
        if (threadIdx.x == 0) row = atomicAdd(next, 1);  // expect: LBL-01
        __syncthreads();
        int y = row;
        __syncthreads();
        if (y >= h) break;
        for (int x = threadIdx.x; x < w; x += blockDim.x) out[y * w + x] = x ^ y;
    }
}
__global__ void keep(const float* v, int n, float* kept, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] > 0) { int s = atomicAdd(count, 1); if (s < n) kept[s] = v[i]; }
}
extern "C" void solution_compute(int* next, int h, int w, int* out, const float* v, float* kept) {
    rows<<<132, 128>>>(next, h, w, out);
    keep<<<w / 256, 256>>>(v, w, kept, next);
}
