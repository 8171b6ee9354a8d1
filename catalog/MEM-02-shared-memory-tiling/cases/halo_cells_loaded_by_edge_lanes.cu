// Case: a 2-D stencil tile whose halo cells are loaded by the edge lanes only (guarded by
// threadIdx.x == 0 and the like); every read lands on a cell some other thread loaded, although
// each read's index text equals one of the guarded halo writes.
#define N 4096
#define IDX(i, j) ((i) + (j) * N)

__global__ void jacobi(float* f, const float* f_old) {
    __shared__ float tile[18][18];  // expect: MEM-02
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int j = threadIdx.y + blockIdx.y * blockDim.y;
    tile[threadIdx.y + 1][threadIdx.x + 1] = f_old[IDX(i, j)];
    if (threadIdx.x == 0 && i >= 1)
        tile[threadIdx.y + 1][threadIdx.x] = f_old[IDX(i - 1, j)];
    if (threadIdx.x == 15 && i <= N - 2)
        tile[threadIdx.y + 1][threadIdx.x + 2] = f_old[IDX(i + 1, j)];
    if (threadIdx.y == 0 && j >= 1)
        tile[threadIdx.y][threadIdx.x + 1] = f_old[IDX(i, j - 1)];
    if (threadIdx.y == 15 && j <= N - 2)
        tile[threadIdx.y + 2][threadIdx.x + 1] = f_old[IDX(i, j + 1)];
    __syncthreads();
    if (i >= 1 && i <= N - 2 && j >= 1 && j <= N - 2)
        f[IDX(i, j)] = 0.25f * (tile[threadIdx.y + 1][threadIdx.x + 2] +
                                tile[threadIdx.y + 1][threadIdx.x] +
                                tile[threadIdx.y + 2][threadIdx.x + 1] +
                                tile[threadIdx.y][threadIdx.x + 1]);
}

extern "C" void solution_compute(float* f, const float* f_old) {
    jacobi<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(f, f_old);
}
