// Smith-Waterman (linear gap) local alignment scores.
// Warp-per-pair anti-diagonal DP: each lane owns one row of a 32-row strip; values flow
// lane-to-lane with warp shuffles. Grid-stride over pairs.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t err__ = (x);                                                          \
        if (err__ != cudaSuccess)                                                         \
            throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(err__)); \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
sw_kernel(int n, const char* __restrict__ A, const int* __restrict__ aoff,
          const int* __restrict__ alen, const char* __restrict__ B,
          const int* __restrict__ boff, const int* __restrict__ blen, int match, int mismatch,
          int gap, int* __restrict__ scratch, int stride, int* __restrict__ out)
{
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int gwarp = (blockIdx.x * BLOCK + threadIdx.x) >> 5;
    const int nwarps = (gridDim.x * BLOCK) >> 5;
    int* edge = scratch + (size_t)gwarp * stride;  // bottom row of the previous strip

    for (int p = gwarp; p < n; p += nwarps) {
        const char* a = A + aoff[p];
        const char* b = B + boff[p];
        const int la = alen[p], lb = blen[p];
        for (int j = lane; j <= lb; j += 32) edge[j] = 0;
        __syncwarp();
        int best = 0;
        for (int i0 = 0; i0 < la; i0 += 32) {
            const bool valid = i0 + lane < la;
            const char ai = valid ? a[i0 + lane] : '\0';
            int h = 0, left = 0, diag = 0;
            for (int s = 0; s < lb + 31; ++s) {
                int up = __shfl_up_sync(FULL, h, 1);
                const int j = s - lane + 1;
                if (j < 1 || j > lb) continue;
                if (lane == 0) up = edge[j];
                h = max(max(diag + (ai == b[j - 1] ? match : mismatch), 0),
                        max(up, left) - gap);
                diag = up;
                left = h;
                if (valid) best = max(best, h);
                if (lane == 31) edge[j] = h;
            }
            __syncwarp();
        }
#pragma unroll
        for (int o = 16; o; o >>= 1) best = max(best, __shfl_xor_sync(FULL, best, o));
        if (lane == 0) out[p] = best;
        __syncwarp();
    }
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    if (num_pairs <= 0) return;
    try {
        constexpr int BLOCK = 256;
        const size_t n = num_pairs;
        size_t a_total = 0, b_total = 0;
        int max_b = 0;
        for (size_t p = 0; p < n; ++p) {
            a_total = std::max(a_total, (size_t)a_off[p] + a_len[p]);
            b_total = std::max(b_total, (size_t)b_off[p] + b_len[p]);
            max_b = std::max(max_b, b_len[p]);
        }
        int dev = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        const int warps_per_block = BLOCK / 32;
        const int grid = (int)std::min<size_t>((n + warps_per_block - 1) / warps_per_block,
                                               (size_t)sms * 8);
        const int stride = max_b + 1;

        DeviceBuffer<char> dA(a_total), dB(b_total);
        DeviceBuffer<int> dAoff(n), dAlen(n), dBoff(n), dBlen(n), dOut(n);
        DeviceBuffer<int> scratch((size_t)grid * warps_per_block * stride);
        CUDA_CHECK(cudaMemcpy(dA.ptr, a_seqs, a_total, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dB.ptr, b_seqs, b_total, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dAoff.ptr, a_off, n * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dAlen.ptr, a_len, n * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dBoff.ptr, b_off, n * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dBlen.ptr, b_len, n * sizeof(int), cudaMemcpyHostToDevice));

        sw_kernel<BLOCK><<<grid, BLOCK>>>(num_pairs, dA.ptr, dAoff.ptr, dAlen.ptr, dB.ptr,
                                          dBoff.ptr, dBlen.ptr, match, mismatch, gap,
                                          scratch.ptr, stride, dOut.ptr);
        CUDA_CHECK(cudaGetLastError());

        std::vector<int> host(n);
        CUDA_CHECK(cudaMemcpy(host.data(), dOut.ptr, n * sizeof(int), cudaMemcpyDeviceToHost));
        std::copy(host.begin(), host.end(), scores);
    } catch (const std::exception& e) {
        fprintf(stderr, "smith_waterman: %s\n", e.what());
        cudaDeviceSynchronize();
    }
}
