// Case: radix digit pass needs a host loop over shifts.
__global__ void digits(const unsigned* keys, unsigned* cnt, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&cnt[(keys[i] >> shift) & 255u], 1u);  // expect: CMP-02
}
__global__ void lanes(const unsigned* keys, unsigned* out, int n, int s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (keys[i] >> s) & 255u;
}
extern "C" void solution_compute(float* a, float* b, int n) {
for (int shift = 0; shift < 32; shift += 8) digits<<<1, 32>>>(0, 0, n, shift);
lanes<<<1, 32>>>(0, 0, n, 8);
}
