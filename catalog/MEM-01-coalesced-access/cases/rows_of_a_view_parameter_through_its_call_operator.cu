// Case: the output is a pitched view passed by value whose call operator returns a row
// (out(r) is the row pointer), written as out(r)[c]. The row is device memory the kernel
// parameter views, and c follows threadIdx.x, so the stores are coalesced.
#include <cuda_runtime.h>

template <typename T>
struct Pitched {
    T* ptr;
    size_t pitch;
    __device__ T* operator()(int r) const { return ptr + r * pitch; }
};

__global__ void ramp_rows(Pitched<float> out, float step, int rows, int cols) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) out(r)[c] = step * (r + c);  // expect: MEM-01
}

extern "C" void solution_compute(float* out, float step, int rows, int cols) {
    dim3 grid((cols + 127) / 128, rows);
    ramp_rows<<<grid, 128>>>(Pitched<float>{out, (size_t)cols}, step, rows, cols);
    cudaDeviceSynchronize();
}
