// Case: accumulator block yes stack and window no.
__global__ void k(const float* a, float* out, int n) {
    float acc[4] = {};  // expect: MEM-03
    int stack[16];
    int sp = 0;
    for (int t = 0; t < n; ++t) {
        float w = a[t];
        for (int j = 0; j < 4; ++j) acc[j] += w * a[t + j];
        stack[sp++] = t;
        if (sp == 16) sp = 0;
    }
    for (int j = 0; j < 4; ++j) out[j] = acc[j] + stack[j];
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b, n);
}
