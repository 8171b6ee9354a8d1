// Case: a kernel file (its launch lives in another file): the kernel maps a 2-D grid, which the
// body shows through blockIdx.y, so the mapping is reported without a launch to read it from.
__global__ void blur_rows(const float* in, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;  // expect: PAR-10
    if (x <= 0 || y >= height || x >= width - 1) return;
    out[y * width + x] = (in[y * width + x - 1] + in[y * width + x] + in[y * width + x + 1]) / 3.0f;
}
