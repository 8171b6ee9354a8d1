// Case: a row of lanes (threadIdx.x) per image row, the rows picked by threadIdx.y within the
// block (y = blockIdx.x * blockDim.y + threadIdx.y), each row's pixels counted into a shared
// histogram with atomics. The row was not recognised as the lanes' item (its index uses a
// thread index) and a tally was not a fold of the row.
#define BINS 256

__global__ void row_histogram(const unsigned char *src, int rows, int cols, size_t step,
                              int *hist) {
  __shared__ int shist[BINS];
  const int y = blockIdx.x * blockDim.y + threadIdx.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  shist[tid] = 0;
  __syncthreads();
  if (y < rows) {
    const unsigned char *row = &src[y * step];
    for (int x = threadIdx.x; x < cols; x += blockDim.x)  // expect: LBL-02
      atomicAdd(&shist[row[x]], 1);  // expect: MEM-01
  }
  __syncthreads();
  atomicAdd(&hist[tid], shist[tid]);  // expect: MEM-01
}

extern "C" void solution_compute(const unsigned char *src, int rows, int cols, int *hist) {
  dim3 block(32, 8);
  row_histogram<<<(rows + 7) / 8, block>>>(src, rows, cols, (size_t)cols, hist);
}
