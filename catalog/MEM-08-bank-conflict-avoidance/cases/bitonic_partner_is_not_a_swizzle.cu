// Case: a bitonic sort in shared memory pairs element i with i ^ j, j halving each pass: the
// XOR picks the partner to exchange with, not a bank swizzle. The transpose kernel's XOR of the
// column with the row is one.
__global__ void sort_block(float* data) {
    __shared__ float buf[256];
    unsigned int t = threadIdx.x;
    buf[t] = data[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned int k = 2; k <= 256; k *= 2) {
        for (unsigned int j = k / 2; j > 0; j /= 2) {
            unsigned int partner = t ^ j;
            if (partner > t) {
                float a = buf[t];
                float b = buf[partner];  // ok: MEM-08
                bool up = (t & k) == 0;
                if ((a > b) == up) {
                    buf[t] = b;
                    buf[partner] = a;  // ok: MEM-08
                }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * 256 + t] = buf[t];
}

__global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x ^ threadIdx.y] = in[y * n + x];  // expect: MEM-08
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    out[y * n + x] = tile[threadIdx.x][threadIdx.y ^ threadIdx.x];  // expect: MEM-08
}

extern "C" void solution_compute(float* data, const float* in, float* out, int n) {
    sort_block<<<n * n / 256, 256>>>(data);
    transpose<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
}
