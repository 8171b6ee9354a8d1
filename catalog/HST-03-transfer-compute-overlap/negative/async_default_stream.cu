// Gray-scale conversion: cudaMemcpyAsync on the default stream and a synchronise after each
// step, so nothing overlaps.
#include <cuda_runtime.h>

__global__ void to_gray(const unsigned char* rgb, unsigned char* gray, int npix) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npix) {
        float g = 0.299f * rgb[3 * p] + 0.587f * rgb[3 * p + 1] + 0.114f * rgb[3 * p + 2];
        gray[p] = (unsigned char)(g + 0.5f);
    }
}

extern "C" void solution_compute(int width, int height, const unsigned char* rgb, unsigned char* gray) {
    int npix = width * height;
    unsigned char *d_rgb, *d_gray;
    cudaMalloc(&d_rgb, 3 * npix);
    cudaMalloc(&d_gray, npix);
    cudaMemcpyAsync(d_rgb, rgb, 3 * npix, cudaMemcpyHostToDevice, 0);  // ok: HST-03
    cudaDeviceSynchronize();
    to_gray<<<(npix + 255) / 256, 256>>>(d_rgb, d_gray, npix);
    cudaMemcpyAsync(gray, d_gray, npix, cudaMemcpyDeviceToHost);  // ok: HST-03
    cudaDeviceSynchronize();
    cudaFree(d_rgb);
    cudaFree(d_gray);
}
