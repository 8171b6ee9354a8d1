// Iterative image thinning: a managed "changed" flag is read on the host after a
// device-wide synchronisation in every pass.
#include <cuda_runtime.h>

__global__ void thin_pass(const unsigned char* in, unsigned char* out, int w, int h, int* changed) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    unsigned char p = in[i];
    int nb = in[i - 1] + in[i + 1] + in[i - w] + in[i + w];
    unsigned char q = (p && nb >= 1 && nb <= 3) ? 0 : p;
    out[i] = q;
    if (q != p) *changed = 1;
}

extern "C" void solution_compute(int w, int h, const unsigned char* img, unsigned char* out) {
    size_t n = (size_t)w * h;
    unsigned char *d_a, *d_b;
    int* changed;
    cudaMalloc(&d_a, n);
    cudaMalloc(&d_b, n);
    cudaMallocManaged(&changed, sizeof(int));
    cudaMemcpy(d_a, img, n, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, img, n, cudaMemcpyHostToDevice);
    dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
    do {
        *changed = 0;
        thin_pass<<<grd, blk>>>(d_a, d_b, w, h, changed);
        cudaDeviceSynchronize();  // expect: AP-02
        unsigned char* t = d_a; d_a = d_b; d_b = t;
    } while (*changed);
    cudaMemcpy(out, d_a, n, cudaMemcpyDeviceToHost);
    cudaFree(d_a); cudaFree(d_b); cudaFree(changed);
}
