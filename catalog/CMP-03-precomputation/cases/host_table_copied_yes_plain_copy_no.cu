// Case: host table copied yes plain copy no.
#include <math.h>
__global__ void k(const float* t, float* y, int n) { y[threadIdx.x] = t[threadIdx.x % n]; }
extern "C" void solution_compute(float* a, float* b, int n) {
float tab[64], stage[64];
for (int j = 0; j < 64; ++j) {
    tab[j] = cosf(0.1f * j);  // expect: CMP-03
    stage[j] = a[j];
}
float* d;
cudaMemcpy(d, tab, sizeof(tab), cudaMemcpyHostToDevice);
cudaMemcpy(d, stage, sizeof(stage), cudaMemcpyHostToDevice);
k<<<1, 64>>>(d, b, n);
}
