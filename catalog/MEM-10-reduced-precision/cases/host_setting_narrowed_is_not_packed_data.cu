// Case: integers narrowed to 8 or 16 bits are reduced precision when they are data packed into a
// narrow array (codes[i] = (uint8_t)levels[i]); one host setting narrowed to a 16-bit scalar
// (a per-device split factor) packs nothing.
#include <cstdint>
#include <cuda_runtime.h>

int split_of_device[8];

__global__ void expand(const uint8_t* codes, float* out, int n, int parts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = codes[i] * (1.0f / parts);
}

extern "C" void solution_compute(const int* levels, float* d_out, uint8_t* codes,
                                 uint8_t* d_codes, int n, int dev) {
    for (int i = 0; i < n; ++i)
        codes[i] = (uint8_t)levels[i];  // expect: MEM-10
    const uint16_t parts = (uint16_t)split_of_device[dev];  // ok: MEM-10
    cudaMemcpy(d_codes, codes, n, cudaMemcpyHostToDevice);
    expand<<<(n + 255) / 256, 256>>>(d_codes, d_out, n, parts > 0 ? parts : 1);
}
