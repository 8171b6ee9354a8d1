// Case: a kernel file with a __host__ __device__ helper and no host code of its own: the helper
// is not a host entry, so the kernel is still judged.
__host__ __device__ inline float squash(float v) { return v / (1.0f + fabsf(v)); }

__global__ void squash_all(float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)  // expect: PAR-01
        x[i] = squash(x[i]);
}
