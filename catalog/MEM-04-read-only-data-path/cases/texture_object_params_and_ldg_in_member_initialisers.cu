// Case: read-only loads in two places the model did not look: __ldg in a device constructor's
// member initialisers (XGBoost's split-evaluation agent), and a texture object handed to the
// kernel and read through the file's own fetch helper (PopSift's readTex around tex2DLayered).
struct SegmentAgent {
  int begin, end;
  __device__ SegmentAgent(const int *segments, int f)
      : begin(__ldg(segments + f)), end(__ldg(segments + f + 1)) {}  // expect: MEM-04
};

__device__ inline float read_tex(cudaTextureObject_t tex, float x, float y, int layer) {  // expect: MEM-04
  return tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, layer);  // expect: MEM-04
}

__global__ void segment_sizes(const int *segments, int *out, int n) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < n) {
    SegmentAgent a(segments, f);
    out[f] = a.end - a.begin;  // expect: MEM-01
  }
}

__global__ void dog_extrema(cudaTextureObject_t dog, int w, int h, int level, int *flags) {  // expect: MEM-04
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w) return;
  float v = read_tex(dog, x, y, level);
  flags[y * w + x] = v > read_tex(dog, x, y, level - 1) && v > read_tex(dog, x, y, level + 1);  // expect: MEM-01
}

extern "C" void solution_compute(const int *segments, int *out, int n, cudaTextureObject_t dog,
                                 int w, int h, int *flags) {
  segment_sizes<<<(n + 255) / 256, 256>>>(segments, out, n);
  dog_extrema<<<dim3((w + 127) / 128, h), 128>>>(dog, w, h, 1, flags);
}
