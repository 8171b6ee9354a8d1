// Case: the kernel is launched from a host template that passes on its own template template
// parameter (Act) beside a constexpr block size: Act is a template parameter of the caller, so the
// launch is an instantiation with constant arguments.
#include <cuda_runtime.h>

template <class T>
struct Relu {
    __device__ T operator()(T v) const { return v > T(0) ? v : T(0); }
};

template <int THREADS, template <class> class Act>  // expect: CMP-07
__global__ void apply(float* x, int n) {
    Act<float> f{};
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n) x[i] = f(x[i]);
}

template <template <class> class Act>
void run(float* x, int n) {
    constexpr int threads = 256;
    apply<threads, Act><<<(n + threads - 1) / threads, threads>>>(x, n);
}

extern "C" void solution_compute(float* x, int n) {
    run<Relu>(x, n);
    cudaDeviceSynchronize();
}
