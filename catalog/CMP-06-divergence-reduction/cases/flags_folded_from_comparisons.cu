// Case: neighbour flags built without branches: a flag narrowed with &= by a comparison and a
// bit set with |= from a select of the bit or nothing. A payoff clipped at zero and summed
// (p > 0 ? p : 0) is a max of the value itself, not a predicate.
__global__ void near_flags(const float* __restrict__ x, const float* __restrict__ y,
                           unsigned* __restrict__ flags, float* __restrict__ gain, int n,
                           float cut2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned bits = 0;
    bool any_far = true;
    float total = 0.0f;
    for (int j = 0; j < 32; j++) {
        int k = (i + j + 1) % n;
        float dx = x[k] - x[i], dy = y[k] - y[i];
        float d2 = dx * dx + dy * dy;
        bits |= (d2 < cut2 ? 1u << j : 0u);  // expect: CMP-06
        any_far &= (d2 >= cut2);  // expect: CMP-06
        float p = cut2 - d2;
        total += p > 0.0f ? p : 0.0f;  // ok: CMP-06
    }
    flags[i] = any_far ? 0u : bits;
    gain[i] = total;
}

extern "C" void solution_compute(const float* x, const float* y, unsigned* flags, float* gain,
                                 int n, float cut2) {
    near_flags<<<(n + 255) / 256, 256>>>(x, y, flags, gain, n, cut2);
}
