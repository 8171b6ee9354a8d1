// Case: block per item handed out at run time.
__global__ void rows(int* next, int h, int w, float* out) {
    __shared__ int row;
    while (true) {
        if (threadIdx.x == 0) row = atomicAdd(next, 1);
        __syncthreads();
        int y = row;
        __syncthreads();
        if (y >= h) return;
        for (int x = threadIdx.x; x < w; x += blockDim.x) out[y * w + x] = 1.0f;
    }
}
extern "C" void solution_compute(int* next, int h, int w, float* out) {
    rows<<<132, 128>>>(next, h, w, out);  // expect: PAR-10
}
