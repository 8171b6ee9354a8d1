// Case: padding yes halo and filter no.
#define B 16
__global__ void k(const float* in, float* out) {
    __shared__ float pad[B][B + 1];  // expect: MEM-08
    __shared__ float halo[B + 2][B + 2];
    __shared__ float f[3][3];
    __shared__ float lit[32][33];  // expect: MEM-08
    pad[threadIdx.y][threadIdx.x] = in[threadIdx.x];
    halo[threadIdx.y][threadIdx.x] = in[threadIdx.x];
    f[0][0] = 1.0f; lit[threadIdx.x][0] = 0.0f;
    __syncthreads();
    out[threadIdx.x] = pad[threadIdx.x][threadIdx.y] + halo[1][1] + f[0][0] + lit[0][0];
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, dim3(16, 16)>>>(a, b);
}
