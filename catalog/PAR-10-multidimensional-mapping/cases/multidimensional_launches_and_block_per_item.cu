// Case: multidimensional launches and block per item.
// dim3 declarations through the launch; the launch
__global__ void img(float* p, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) p[y * w + x] = 0;
}
__global__ void rows(float* a, int cols) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) a[row * cols + c] *= 2.0f;
}
__global__ void csr_rows(const int* rp, float* v) {
    int row = blockIdx.x;
    for (int e = rp[row] + threadIdx.x; e < rp[row + 1]; e += blockDim.x) v[e] *= 2.0f;
}
__global__ void flat(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 0;
}
extern "C" void solution_compute(float* p, const int* rp, int w, int h) {
    dim3 block(16, 16);  // expect: PAR-10
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    img<<<grid, block>>>(p, w, h);
    rows<<<h, 256>>>(p, w);  // expect: PAR-10
    csr_rows<<<h, 256>>>(rp, p);
    dim3 g1((w * h + 255) / 256, 1, 1);
    flat<<<g1, 256>>>(p, w * h);
}
