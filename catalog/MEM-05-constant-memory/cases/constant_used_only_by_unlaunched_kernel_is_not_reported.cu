// Case: constant used only by unlaunched kernel is not reported.
__constant__ float used[8];  // expect: MEM-05
__constant__ float unused[8];
__global__ void live(float* y) { y[threadIdx.x] = used[threadIdx.x & 7]; }
__global__ void dead(float* y) { y[threadIdx.x] = unused[threadIdx.x & 7]; }
extern "C" void solution_compute(float* a, float* b, int n) {
live<<<1, 32>>>(b);
}
