// Case: Thrust under a library's own namespace (AMGX builds it as amgx::thrust, as
// THRUST_WRAPPED_NAMESPACE allows): count_if returns the number of uncoloured rows to the host
// every pass, and that number decides whether the colouring loop goes on. The wrapped name was
// not known as Thrust, so neither the library call nor the round trip was seen.
#include <thrust/count.h>
#include <thrust/execution_policy.h>
namespace amgx { namespace thrust = ::thrust; }

struct is_zero {
  __host__ __device__ bool operator()(int c) const { return c == 0; }
};

__global__ void color_rows(const int *row_offsets, const int *cols, int *colors, int color,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || colors[i] != 0) return;
  bool is_max = true;
  for (int j = row_offsets[i]; j < row_offsets[i + 1]; j++)
    if (colors[cols[j]] == 0 && cols[j] > i) is_max = false;
  if (is_max) colors[i] = color;
}

extern "C" void solution_compute(const int *row_offsets, const int *cols, int *colors, int n) {
  int color = 1;
  for (int uncolored = n; uncolored > 0;) {
    color_rows<<<(n + 255) / 256, 256>>>(row_offsets, cols, colors, color, n);
    color += 1;
    uncolored = (int)amgx::thrust::count_if(thrust::device, colors, colors + n, is_zero());  // expect: AP-02, HST-07
  }
}
