// Case: each thread reads and writes its own interleaved complex pair, re[2 * i] and
// im[2 * i + 1]: stride 2 per access, but the two accesses together cover the warp's 256
// contiguous bytes, as one float2 access would. A pair read only at 2 * i (half of each record
// skipped) is strided, and so are 12-byte xyz records (see the next case).
__global__ void scale_spectrum(float* __restrict__ spec, const float* __restrict__ gain,
                               const float* __restrict__ pairs, float* __restrict__ real_part,
                               int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int e = 2 * i;
    float g = gain[i];  // expect: MEM-01
    float re = spec[e];  // expect: MEM-01
    float im = spec[e + 1];  // expect: MEM-01
    spec[e] = g * re;  // expect: MEM-01
    spec[e + 1] = g * im;  // expect: MEM-01
    float first = pairs[2 * i];  // ok: MEM-01
    real_part[i] = first;  // expect: MEM-01
}

extern "C" void solution_compute(float* spec, const float* gain, const float* pairs,
                                 float* real_part, int n) {
    scale_spectrum<<<(n + 255) / 256, 256>>>(spec, gain, pairs, real_part, n);
}
