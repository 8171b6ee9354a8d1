// Case: occupancy from device properties only when it sizes a launch.
#include <cstdio>
__global__ void __launch_bounds__(256) k(float* x, int n) {  // expect: PAR-11
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0;
}
__global__ void __launch_bounds__(128) unused(float* x) { x[0] = 1; }
extern "C" void solution_compute(float* x, int n) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (prop.major < 7) printf("old device\n");
    int sms = prop.multiProcessorCount;  // expect: PAR-11
    k<<<sms * 4, 256>>>(x, n);
}
