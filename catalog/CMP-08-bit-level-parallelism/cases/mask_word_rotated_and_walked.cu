// Case: each thread loads a 32-bit exclusion mask of its row, rotates it so that bit 0 is its
// own partner's, and consumes it a bit per step of the loop (tested with & 1, shifted by one).
// A loop counter halved with >>= 1 and tested with & 1 is no mask: it is not loaded.
__global__ void masked_pairs(const unsigned* __restrict__ excl, const float* __restrict__ q,
                             float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lane = threadIdx.x % 32;
    unsigned m = excl[i];
    m = (m >> lane) | (m << ((32 - lane) & 31));  // expect: CMP-08
    float e = 0.0f;
    for (int j = 0; j < 32; j++) {
        int k = (i - lane + (lane + j) % 32) % n;
        if (!(m & 1))  // expect: CMP-08
            e += q[i] * q[k];
        m >>= 1;  // expect: CMP-08
    }
    int steps = n;
    while (steps > 0) {
        if (steps & 1)  // ok: CMP-08
            e *= 0.5f;
        steps >>= 1;  // ok: CMP-08
    }
    out[i] = e;
}

extern "C" void solution_compute(const unsigned* excl, const float* q, float* out, int n) {
    masked_pairs<<<(n + 255) / 256, 256>>>(excl, q, out, n);
}
