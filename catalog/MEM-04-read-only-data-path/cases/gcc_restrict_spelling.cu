// Case: GCC's `__restrict` spelling on const pointers (`const T* const __restrict p`): the
// parameter is still the pointer, read through the read-only path.
__global__ void gather(const int nodes,
                       const int* const __restrict idx,  // expect: MEM-04
                       const float* const __restrict val,  // expect: MEM-04
                       float* const __restrict out) {
    int v = threadIdx.x + blockIdx.x * blockDim.x;
    if (v < nodes) out[v] = val[idx[v]];
}

extern "C" void solution_compute(int nodes, const int* idx, const float* val, float* out) {
    gather<<<(nodes + 255) / 256, 256>>>(nodes, idx, val, out);
}
