// Case: a thread's two outputs i and i + blockDim.x, each under its own bounds guard, run
// together (only the two branches of one if are exclusive); a block offset scaled beyond one
// block (blockIdx.x * p.loops * blockDim.x) with a block-stride loop bounded by that factor
// gives each thread several outputs. One store in each of two loops is one output per loop.
struct Params { const float* x; float* y; int n; int loops; };

__global__ void pair_per_thread(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    const int i2 = blockIdx.x * blockDim.x * 2 + threadIdx.x + blockDim.x;
    if (i < n)
        out[i] = 2.0f * in[i];  // expect: PAR-02
    if (i2 < n)
        out[i2] = 2.0f * in[i2];
}

__global__ void scaled_blocks(Params p) {
    int xi = blockIdx.x * p.loops * blockDim.x + threadIdx.x;
    for (int k = 0; k < p.loops && xi < p.n; k++, xi += blockDim.x) {  // expect: PAR-02
        p.y[xi] = p.x[xi] + 1.0f;
    }
}

// ok: PAR-02
__global__ void two_passes(const float* in, float* out, int n, int flag) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = in[i];
    if (flag)
        for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] += in[i];
}

extern "C" void solution_compute(const float* in, float* out, int n) {
    pair_per_thread<<<(n + 511) / 512, 256>>>(in, out, n);
    Params p = {in, out, n, 4};
    scaled_blocks<<<(n + 1023) / 1024, 256>>>(p);
    two_passes<<<4, 256>>>(in, out, n / 4, 1);
}
