// Case: a pencil of a periodic grid loaded into shared memory, whose halo is then filled by
// copies inside the tile (s[j][i - 4] = s[j][i + n - 5]): a copy from one cell to another is
// not a combining update of a reduction workspace, so the tile still counts.
#define N 64

__global__ void derivative_x(const float* f, float* df) {
    __shared__ float s[4][N + 8];  // expect: MEM-02
    int i = threadIdx.x, j = blockIdx.x * blockDim.y + threadIdx.y;
    int si = i + 4, sj = threadIdx.y;
    s[sj][si] = f[j * N + i];
    __syncthreads();
    if (i < 4) {
        s[sj][si - 4] = s[sj][si + N - 5];
        s[sj][si + N] = s[sj][si + 1];
    }
    __syncthreads();
    df[j * N + i] = 0.8f * (s[sj][si + 1] - s[sj][si - 1]) - 0.2f * (s[sj][si + 2] - s[sj][si - 2]);
}

extern "C" void solution_compute(const float* f, float* df, int rows) {
    derivative_x<<<rows / 4, dim3(N, 4)>>>(f, df);
}
