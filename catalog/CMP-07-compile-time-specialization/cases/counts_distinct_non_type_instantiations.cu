// Case: counts distinct non type instantiations.
template <int B>  // expect: CMP-07
__global__ void red(const float* x, float* y) { y[threadIdx.x % B] = x[threadIdx.x]; }
template <typename T>
__global__ void cp(const T* x, T* y) { y[threadIdx.x] = x[threadIdx.x]; }
template <int N>
__global__ void never(float* y) { y[threadIdx.x] = N; }
extern "C" void solution_compute(float* a, float* b, int n) {
if (n > 1024) red<256><<<1, 256>>>(a, b);
else red<64><<<1, 64>>>(a, b);
cp<float><<<1, 32>>>(a, b);
}
