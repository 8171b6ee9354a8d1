#include <cuda_runtime.h>

#define T 32
#define LOG_BANKS 5

// Column gather through an XOR-swizzled tile: element (r, c) lives at column c ^ r.
__global__ void col_sums_swizzled(const float* a, float* out, int n) {
    __shared__ float tile[T][T];
    int r0 = blockIdx.x * T;
    for (int r = 0; r < T; ++r)
        tile[r][threadIdx.x ^ r] = a[(r0 + r) * n + threadIdx.x]; // expect: MEM-08
    __syncthreads();
    float s = 0.0f;
    for (int r = 0; r < T; ++r) s += tile[threadIdx.x][r ^ threadIdx.x]; // expect: MEM-08
    out[blockIdx.x * T + threadIdx.x] = s;
}

// Work-efficient scan up-sweep with the conflict-free offset i + (i >> LOG_BANKS).
__global__ void upsweep_block(const float* in, float* out, int n) {
    __shared__ float temp[2 * 256 + (2 * 256 >> LOG_BANKS)];
    int tid = threadIdx.x;
    int base = blockIdx.x * 512;
    int ai = tid, bi = tid + 256;
    temp[ai + (ai >> LOG_BANKS)] = (base + ai < n) ? in[base + ai] : 0.0f; // expect: MEM-08
    temp[bi + (bi >> LOG_BANKS)] = (base + bi < n) ? in[base + bi] : 0.0f; // expect: MEM-08
    __syncthreads();
    int offset = 1;
    for (int d = 256; d > 0; d >>= 1) {
        if (tid < d) {
            int x = offset * (2 * tid + 1) - 1, y = offset * (2 * tid + 2) - 1;
            temp[y + (y >> LOG_BANKS)] += temp[x + (x >> LOG_BANKS)]; // expect: MEM-08
        }
        offset *= 2;
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = temp[511 + (511 >> LOG_BANKS)]; // expect: MEM-08
}

extern "C" void solution_compute(const float* a, float* sums, int n, const float* v, float* blocks, int m) {
    float *da, *ds, *dv, *db;
    cudaMalloc(&da, sizeof(float) * n * n);
    cudaMalloc(&ds, sizeof(float) * n);
    cudaMemcpy(da, a, sizeof(float) * n * n, cudaMemcpyHostToDevice);
    col_sums_swizzled<<<n / T, T>>>(da, ds, n);
    cudaMemcpy(sums, ds, sizeof(float) * n, cudaMemcpyDeviceToHost);
    int nb = (m + 511) / 512;
    cudaMalloc(&dv, sizeof(float) * m);
    cudaMalloc(&db, sizeof(float) * nb);
    cudaMemcpy(dv, v, sizeof(float) * m, cudaMemcpyHostToDevice);
    upsweep_block<<<nb, 256>>>(dv, db, m);
    cudaMemcpy(blocks, db, sizeof(float) * nb, cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(ds); cudaFree(dv); cudaFree(db);
}
