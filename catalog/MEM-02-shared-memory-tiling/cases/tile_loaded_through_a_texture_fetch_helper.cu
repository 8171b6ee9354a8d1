// Case: the tile is loaded through a texture object, directly or through a one-line helper the
// file defines (fetch returns tex1Dfetch): a load of device memory, not a computed value, so
// the shared tile that the neighbours then read is a staged copy of global data.
#include <cuda_runtime.h>

__device__ inline float fetch(cudaTextureObject_t tex, int i) {
    return tex1Dfetch<float>(tex, i);
}

__global__ void blur_rows(cudaTextureObject_t tex, float* out, int width, int height) {
    __shared__ float tile[16][18];  // expect: MEM-02
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    bool inside = x < width && y < height;
    tile[threadIdx.y][threadIdx.x + 1] = inside ? fetch(tex, y * width + x) : 0.0f;
    if (threadIdx.x == 0)
        tile[threadIdx.y][0] = x > 0 && inside ? fetch(tex, y * width + x - 1) : 0.0f;
    if (threadIdx.x == 15)
        tile[threadIdx.y][17] = x + 1 < width && inside ? fetch(tex, y * width + x + 1) : 0.0f;
    __syncthreads();
    if (inside) {
        float* row = tile[threadIdx.y];
        out[y * width + x] = (row[threadIdx.x] + row[threadIdx.x + 1] + row[threadIdx.x + 2]) / 3.0f;
    }
}

extern "C" void solution_compute(cudaTextureObject_t tex, float* out, int width, int height) {
    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    blur_rows<<<grid, block>>>(tex, out, width, height);
    cudaDeviceSynchronize();
}
