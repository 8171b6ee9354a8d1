// Case: the element type is a template type parameter that the file instantiates with float4 (and
// with float): in the float4 instantiation each load and store is one 128-bit access.
#include <cuda_runtime.h>

template <class V>
__global__ void copy_elems(const V* __restrict__ in, V* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        V v = in[i];  // expect: MEM-06
        out[i] = v;  // expect: MEM-06
    }
}

template <class V>
void run(const void* in, void* out, int n) {
    copy_elems<V><<<(n + 255) / 256, 256>>>(static_cast<const V*>(in), static_cast<V*>(out), n);
}

extern "C" void solution_compute(const float* in, float* out, int n) {
    if (n % 4 == 0) run<float4>(in, out, n / 4);
    else run<float>(in, out, n);
    cudaDeviceSynchronize();
}
