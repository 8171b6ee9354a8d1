// Case: kernels that take their arrays as tensor views passed by value (FAISS's Tensor,
// PyTorch's PackedTensorAccessor: a struct over a device pointer with operator[]), read as
// in[row][col]. A kernel parameter the body subscripts is device memory whatever its type;
// the column follows threadIdx.x, so the accesses are coalesced.
template <typename T>
struct RowView {
  T* data;
  int cols;
  __device__ T* operator[](int r) const { return data + r * cols; }
};

__global__ void scale_rows(RowView<const float> in, RowView<float> out, int rows, int cols) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) out[row][col] = 2.0f * in[row][col];  // expect: MEM-01
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols) {
  dim3 grid((cols + 255) / 256, rows);
  scale_rows<<<grid, 256>>>(RowView<const float>{in, cols}, RowView<float>{out, cols}, rows, cols);
}
