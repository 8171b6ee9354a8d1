// Case: row only table is not bank padding.
// A DP table [3][N + 1] read along its rows: the +1 is the DP boundary, not bank padding.
#define N 1024
__global__ void k(const int* in, int* out) {
    __shared__ int diag[3][N + 1];
    __shared__ float t[32][32 + 1];  // expect: MEM-08
    for (int d = 0; d < 3; ++d) diag[d % 3][threadIdx.x] = in[threadIdx.x];
    t[threadIdx.x][threadIdx.y] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = diag[1][threadIdx.x] + (int)t[threadIdx.y][threadIdx.x];
}
extern "C" void solution_compute(int* a, int* b, int n) {
k<<<1, dim3(32, 32)>>>(a, b);
}
