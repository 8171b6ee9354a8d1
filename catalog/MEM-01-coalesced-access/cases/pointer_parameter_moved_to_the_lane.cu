// Case: a kernel that moves its pointer parameters to the thread's first element
// (src += row * cols + VEC * threadIdx.x, as Megatron's fused softmax does) and then copies VEC
// elements at a time through a copy helper the file specialises per width. The bump carries
// the lane: consecutive lanes' vectors are contiguous. Before, the bump of a parameter was
// read as no offset at all, so every access looked like a broadcast.
template <typename T, int N>
__device__ void copy_vector(T* dst, const T* src);
template <>
__device__ void copy_vector<float, 1>(float* dst, const float* src) { *dst = *src; }
template <>
__device__ void copy_vector<float, 4>(float* dst, const float* src) {
  *reinterpret_cast<float4*>(dst) = *reinterpret_cast<const float4*>(src);
}

template <int VEC>
__global__ void scale_rows(float* dst, const float* src, int cols) {
  src += blockIdx.x * cols + VEC * threadIdx.x;
  dst += blockIdx.x * cols + VEC * threadIdx.x;
  float tmp[VEC];
  for (int it = 0; it + VEC * (int)threadIdx.x < cols; it += VEC * blockDim.x) {
    copy_vector<float, VEC>(tmp, src + it);  // expect: MEM-01
    for (int k = 0; k < VEC; ++k) tmp[k] *= 2.0f;
    copy_vector<float, VEC>(dst + it, tmp);  // expect: MEM-01
  }
}

extern "C" void solution_compute(float* dst, const float* src, int rows, int cols) {
  scale_rows<4><<<rows, 128>>>(dst, src, cols);
}
