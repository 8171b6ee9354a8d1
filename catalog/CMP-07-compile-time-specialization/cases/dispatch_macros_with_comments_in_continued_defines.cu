// Case: a size dispatch through launch macros defined inside the launcher, one nested in the
// other, with a block comment inside a backslash-continued #define (the grammar used to end the
// directive at the comment, and every label of the file was lost).
template <int K>  // expect: CMP-07
__global__ void select_k(const float* in, float* out, int n) {  // the values are K: 1, 32, 64
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float best = 1e30f;
    for (int j = 0; j < K && i * K + j < n; ++j) best = fminf(best, in[i * K + j]);
    if (i * K < n) out[i] = best;
}

extern "C" void solution_compute(const float* in, float* out, int n, int k) {
#define RUN(K)                                                   \
    do {                                                         \
        select_k<K><<<(n / K + 255) / 256, 256>>>(in, out, n);   \
        return; /* launched */                                   \
    } while (0)
#define RUN_ALL()                \
    do {                         \
        if (k == 1) {            \
            RUN(1);              \
        } else if (k <= 32) {    \
            RUN(32);             \
        } else {                 \
            RUN(64);             \
        }                        \
    } while (0)
    RUN_ALL();
#undef RUN_ALL
#undef RUN
}
