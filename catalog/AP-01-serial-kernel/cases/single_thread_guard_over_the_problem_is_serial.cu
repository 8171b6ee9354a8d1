// Case: single thread guard over the problem is serial.
#include <cuda_runtime.h>
__global__ void scan(const int* in, int* out, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }  // expect: AP-01
    }
    if (threadIdx.x == 0 || n < 0) out[0] = in[0];
}
__global__ void block_result(const int* in, int* out) {
    if (threadIdx.x == 0) out[blockIdx.x] = in[blockIdx.x];
}
extern "C" void solution_compute(int n, const int* d_in, int* d_out) {
    scan<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    block_result<<<(n + 255) / 256, 256>>>(d_in, d_out);
}
