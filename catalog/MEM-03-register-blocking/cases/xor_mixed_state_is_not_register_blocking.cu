// Case: a per-thread state array mixed with XOR each round (a hash or cipher state) is the
// algorithm's state, not accumulators that reuse loaded operands; sums into a small local array
// over a reused loop are.
#include <cstdint>

__global__ void mix_rounds(const uint32_t* in, uint32_t* out, int rounds) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t state[4];  // ok: MEM-03
    for (int j = 0; j < 4; ++j) state[j] = in[4 * t + j];
    for (int r = 0; r < rounds; ++r) {
        for (int j = 0; j < 4; ++j) state[j] ^= in[(r * 4 + j) & 1023];
        for (int j = 0; j < 4; ++j) state[j] = state[j] ^ (state[(j + 1) & 3] << 7);
    }
    for (int j = 0; j < 4; ++j) out[4 * t + j] = state[j];
}

__global__ void row_sums(const float* a, float* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // expect: MEM-03
    for (int k = 0; k < n; ++k) {
        float v = a[k];
        for (int j = 0; j < 4; ++j) acc[j] += v * a[(4 * t + j) * n + k];
    }
    for (int j = 0; j < 4; ++j) out[4 * t + j] = acc[j];
}
