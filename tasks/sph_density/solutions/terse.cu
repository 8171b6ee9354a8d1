// SPH density (poly6) with a sorted cell list: radix-sort particles by cell hash, find cell
// start/end, reorder positions, then gather neighbours from the 27 surrounding cells.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t err = (x);                                                         \
        if (err != cudaSuccess) {                                                      \
            fprintf(stderr, "CUDA error %s (%s:%d)\n", cudaGetErrorString(err),        \
                    __FILE__, __LINE__);                                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
    cudaError_t alloc(size_t count) { return cudaMalloc(&ptr, count * sizeof(T)); }
};

struct GridInfo {
    float inv_cell;
    int nc;
};

__device__ __forceinline__ int cell_of(float v, const GridInfo& g)
{
    return min(max((int)(v * g.inv_cell), 0), g.nc - 1);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
hash_kernel(const float4* __restrict__ pos, int n, GridInfo g, int* __restrict__ keys,
            int* __restrict__ ids)
{
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
        const float4 p = pos[i];
        keys[i] = cell_of(p.x, g) + g.nc * (cell_of(p.y, g) + g.nc * cell_of(p.z, g));
        ids[i] = i;
    }
}

// cellStart/cellEnd from the sorted keys; the previous key comes from the neighbouring lane.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
bounds_kernel(const int* __restrict__ keys, const int* __restrict__ ids,
              const float4* __restrict__ pos, int n, int* __restrict__ cell_start,
              int* __restrict__ cell_end, float4* __restrict__ sorted_pos)
{
    const int lane = threadIdx.x & 31;
    const int n_pad = (n + 31) & ~31;
    for (int k = blockIdx.x * BLOCK + threadIdx.x; k < n_pad; k += gridDim.x * BLOCK) {
        const int key = k < n ? keys[k] : -1;
        int prev = __shfl_up_sync(0xffffffffu, key, 1);
        if (lane == 0) prev = (k > 0 && k <= n) ? keys[k - 1] : -1;
        if (k < n) {
            if (key != prev) {
                cell_start[key] = k;
                if (k > 0) cell_end[prev] = k;
            }
            if (k == n - 1) cell_end[key] = n;
            sorted_pos[k] = pos[ids[k]];
        }
    }
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
density_kernel(const float4* __restrict__ sorted_pos, const int* __restrict__ ids,
               const int* __restrict__ cell_start, const int* __restrict__ cell_end, int n,
               GridInfo g, float h2, float coef, float* __restrict__ density)
{
    for (int k = blockIdx.x * BLOCK + threadIdx.x; k < n; k += gridDim.x * BLOCK) {
        const float4 p = sorted_pos[k];
        const int cx = cell_of(p.x, g), cy = cell_of(p.y, g), cz = cell_of(p.z, g);
        float sum = 0.f;
        for (int z = max(cz - 1, 0); z <= min(cz + 1, g.nc - 1); ++z)
            for (int y = max(cy - 1, 0); y <= min(cy + 1, g.nc - 1); ++y)
                for (int x = max(cx - 1, 0); x <= min(cx + 1, g.nc - 1); ++x) {
                    const int c = x + g.nc * (y + g.nc * z);
                    const int s = cell_start[c];
                    if (s < 0) continue;   // empty cell
                    const int e = cell_end[c];
                    for (int m = s; m < e; ++m) {
                        const float4 q = sorted_pos[m];
                        const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
                        const float r2 = dx * dx + dy * dy + dz * dz;
                        if (r2 < h2) {
                            const float w = h2 - r2;
                            sum += w * w * w;
                        }
                    }
                }
        density[ids[k]] = coef * sum;
    }
}

extern "C" void solution_compute(int n, const float* pos, float h, float mass, float box,
                                 float* density)
{
    if (n <= 0) return;
    constexpr int BLOCK = 256;
    const int nc = std::min(std::max((int)(box / h), 1), 512);
    const int ncells = nc * nc * nc;
    const GridInfo g{(float)nc / box, nc};
    const float h2 = h * h;
    const double h9 = std::pow((double)h, 9);
    const float coef = (float)(mass * 315.0 / (64.0 * 3.14159265358979323846 * h9));

    std::vector<float4> h_pos(n);
    for (int i = 0; i < n; ++i) h_pos[i] = make_float4(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2], 0.f);

    DeviceBuffer<float4> d_pos, d_sorted;
    DeviceBuffer<int> d_keys, d_keys_sorted, d_ids, d_ids_sorted, d_start, d_end;
    DeviceBuffer<float> d_density;
    DeviceBuffer<unsigned char> d_temp;
    CUDA_CHECK(d_pos.alloc(n));
    CUDA_CHECK(d_sorted.alloc(n));
    CUDA_CHECK(d_keys.alloc(n));
    CUDA_CHECK(d_keys_sorted.alloc(n));
    CUDA_CHECK(d_ids.alloc(n));
    CUDA_CHECK(d_ids_sorted.alloc(n));
    CUDA_CHECK(d_start.alloc(ncells));
    CUDA_CHECK(d_end.alloc(ncells));
    CUDA_CHECK(d_density.alloc(n));
    CUDA_CHECK(cudaMemcpy(d_pos.ptr, h_pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

    const int blocks = std::min((n + BLOCK - 1) / BLOCK, 4096);
    hash_kernel<BLOCK><<<blocks, BLOCK>>>(d_pos.ptr, n, g, d_keys.ptr, d_ids.ptr);
    CUDA_CHECK(cudaGetLastError());

    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, d_keys.ptr, d_keys_sorted.ptr,
                                               d_ids.ptr, d_ids_sorted.ptr, n));
    CUDA_CHECK(d_temp.alloc(temp_bytes));
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d_temp.ptr, temp_bytes, d_keys.ptr, d_keys_sorted.ptr,
                                               d_ids.ptr, d_ids_sorted.ptr, n));

    CUDA_CHECK(cudaMemset(d_start.ptr, 0xff, ncells * sizeof(int)));   // -1 = empty
    bounds_kernel<BLOCK><<<blocks, BLOCK>>>(d_keys_sorted.ptr, d_ids_sorted.ptr, d_pos.ptr, n,
                                            d_start.ptr, d_end.ptr, d_sorted.ptr);
    CUDA_CHECK(cudaGetLastError());
    density_kernel<BLOCK><<<blocks, BLOCK>>>(d_sorted.ptr, d_ids_sorted.ptr, d_start.ptr, d_end.ptr,
                                             n, g, h2, coef, d_density.ptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(density, d_density.ptr, n * sizeof(float), cudaMemcpyDeviceToHost));
}
