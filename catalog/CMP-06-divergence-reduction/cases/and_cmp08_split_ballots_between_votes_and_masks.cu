// Case: and CMP-08 split ballots between votes and masks.
__global__ void k(const float* x, int* cnt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    if (__ballot_sync(0xffffffffu, v > 1.0f)) cnt[1] += 1;  // expect: CMP-06
    unsigned m = __ballot_sync(0xffffffffu, v > 2.0f);  // expect: CMP-08
    cnt[i] += (v > 0.0f);  // expect: CMP-06
    if ((threadIdx.x & 31) == 0) atomicAdd(cnt, __popc(m));  // expect: CMP-08
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, 0, n);
}
