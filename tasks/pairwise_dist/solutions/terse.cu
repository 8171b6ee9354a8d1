// Pairwise Euclidean distances (CUDA).
// Tiled kernel: each block caches TILE rows of X and TILE rows of Y (all d coordinates) in
// shared memory and walks the output tiles with a grid-stride loop.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(expr)                                                                 \
    do {                                                                                 \
        cudaError_t _e = (expr);                                                         \
        if (_e != cudaSuccess) {                                                         \
            std::fprintf(stderr, "CUDA error '%s' at %s:%d\n", cudaGetErrorString(_e),    \
                         __FILE__, __LINE__);                                            \
            return false;                                                                \
        }                                                                                \
    } while (0)

template <int TILE>
__global__ void __launch_bounds__(TILE * TILE)
pairwise_kernel(const float* __restrict__ X, const float* __restrict__ Y,
                float* __restrict__ D, int n, int m, int d)
{
    extern __shared__ float smem[];
    const int ld = d + 1;  // pad rows to avoid bank conflicts
    float* xs = smem;
    float* ys = smem + TILE * ld;

    const int tilesX = (m + TILE - 1) / TILE;
    const int tilesY = (n + TILE - 1) / TILE;
    const int numTiles = tilesX * tilesY;
    const int tid = threadIdx.y * TILE + threadIdx.x;

    for (int t = blockIdx.x; t < numTiles; t += gridDim.x) {
        const int row0 = (t / tilesX) * TILE;
        const int col0 = (t % tilesX) * TILE;

        for (int e = tid; e < TILE * d; e += TILE * TILE) {
            const int r = e / d, k = e % d;
            xs[r * ld + k] = (row0 + r < n) ? X[(size_t)(row0 + r) * d + k] : 0.f;
            ys[r * ld + k] = (col0 + r < m) ? Y[(size_t)(col0 + r) * d + k] : 0.f;
        }
        __syncthreads();

        const int i = row0 + threadIdx.y;
        const int j = col0 + threadIdx.x;
        float acc = 0.f;
        const float* xr = xs + threadIdx.y * ld;
        const float* yr = ys + threadIdx.x * ld;
#pragma unroll 8
        for (int k = 0; k < d; ++k) {
            const float diff = xr[k] - yr[k];
            acc = fmaf(diff, diff, acc);
        }
        if (i < n && j < m) D[(size_t)i * m + j] = sqrtf(acc);
        __syncthreads();
    }
}

static bool run(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    constexpr int TILE = 16;
    const size_t nx = (size_t)n * d, ny = (size_t)m * d, nd = (size_t)n * m;
    float *dX = nullptr, *dY = nullptr, *dD = nullptr;

    auto cleanup = [&]() {
        cudaFree(dX);
        cudaFree(dY);
        cudaFree(dD);
    };

    const size_t smem = 2 * TILE * (size_t)(d + 1) * sizeof(float);
    int dev = 0, maxSmem = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&maxSmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (smem > (size_t)maxSmem) {
        std::fprintf(stderr, "d=%d too large for the shared-memory tile\n", d);
        return false;
    }
    CUDA_CHECK(cudaFuncSetAttribute(pairwise_kernel<TILE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));

    if (cudaMalloc(&dX, nx * sizeof(float) + 16) != cudaSuccess ||
        cudaMalloc(&dY, ny * sizeof(float) + 16) != cudaSuccess ||
        cudaMalloc(&dD, nd * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        cleanup();
        return false;
    }

    bool ok = cudaMemcpy(dX, X, nx * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(dY, Y, ny * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok) {
        const int tiles = ((m + TILE - 1) / TILE) * ((n + TILE - 1) / TILE);
        const int grid = std::min(tiles, sms * 16);
        dim3 block(TILE, TILE);
        pairwise_kernel<TILE><<<grid, block, smem>>>(dX, dY, dD, n, m, d);
        ok = cudaGetLastError() == cudaSuccess;
    }
    if (ok) {
        std::vector<float> h(nd);
        ok = cudaMemcpy(h.data(), dD, nd * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
        if (ok) std::copy(h.begin(), h.end(), dist);
    }
    if (!ok) std::fprintf(stderr, "pairwise kernel failed\n");
    cleanup();
    return ok;
}

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    if (n <= 0 || m <= 0) return;
    run(X, n, Y, m, d, dist);
}
