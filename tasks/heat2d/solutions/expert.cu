// heat2d, tuned for an H200 end to end.
//  * Time steps are fused: each launch advances its tile T = 4 steps inside shared memory, so
//    the grid goes through DRAM/L2 once per 4 steps. Each block loads a (64+2T) x (128+2T) tile
//    and updates a region that shrinks by one cell per step; the 64 x 128 centre is exact.
//  * The clamped boundary is handled at load time: cells outside the grid are loaded as the
//    mirror image of the inside (index -1 -> 0, -2 -> 1, ...). The five-point update keeps that
//    mirror symmetry, so after any number of steps the ghost cells still equal the clamped
//    neighbours bit for bit and the update loop has no boundary tests.
//  * Interior tiles load and store with float4.
//  * Pageable copies run at 6-9 GB/s; the grid is moved through a small ring of pinned buffers
//    that several host threads fill and drain in parallel while the copy engines stream them.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define CK(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "heat2d %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return e_;                                                                   \
        }                                                                                \
    } while (0)

// ---------------------------------------------------------------- pinned parallel staging
namespace staging {

constexpr size_t CHUNK = 4u << 20;
constexpr int MAX_WORKERS = 8;

struct Ring {
    int workers = 0;
    int device = 0;
    char* pinned = nullptr;  // workers x 2 slots of CHUNK bytes
    cudaStream_t stream[MAX_WORKERS] = {};
    cudaEvent_t done[MAX_WORKERS][2] = {};

    cudaError_t open(int want)
    {
        workers = std::max(1, std::min(want, MAX_WORKERS));
        CK(cudaGetDevice(&device));
        CK(cudaHostAlloc((void**)&pinned, (size_t)workers * 2 * CHUNK, cudaHostAllocDefault));
        for (int w = 0; w < workers; ++w) {
            CK(cudaStreamCreateWithFlags(&stream[w], cudaStreamNonBlocking));
            for (int s = 0; s < 2; ++s)
                CK(cudaEventCreateWithFlags(&done[w][s], cudaEventDisableTiming));
        }
        return cudaSuccess;
    }
    void close()
    {
        for (int w = 0; w < workers; ++w) {
            if (stream[w]) cudaStreamDestroy(stream[w]);
            for (int s = 0; s < 2; ++s)
                if (done[w][s]) cudaEventDestroy(done[w][s]);
        }
        if (pinned) cudaFreeHost(pinned);
        pinned = nullptr;
        workers = 0;
    }
    char* slot(int w, int s) const { return pinned + ((size_t)w * 2 + s) * CHUNK; }

    // Worker w moves chunks w, w + W, w + 2W, ... through its two pinned slots.
    cudaError_t up_worker(int w, char* dst, const char* src, size_t bytes)
    {
        CK(cudaSetDevice(device));
        const size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
        size_t j = 0;
        for (size_t k = w; k < nchunks; k += workers, ++j) {
            const int s = (int)(j & 1);
            if (j >= 2) CK(cudaEventSynchronize(done[w][s]));  // slot's previous copy is done
            const size_t off = k * CHUNK, len = std::min(CHUNK, bytes - off);
            memcpy(slot(w, s), src + off, len);
            CK(cudaMemcpyAsync(dst + off, slot(w, s), len, cudaMemcpyHostToDevice, stream[w]));
            CK(cudaEventRecord(done[w][s], stream[w]));
        }
        CK(cudaStreamSynchronize(stream[w]));
        return cudaSuccess;
    }
    cudaError_t down_worker(int w, char* dst, const char* src, size_t bytes)
    {
        CK(cudaSetDevice(device));
        const size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
        if ((size_t)w >= nchunks) return cudaSuccess;
        const size_t mine = (nchunks - w + workers - 1) / workers;
        auto issue = [&](size_t j) -> cudaError_t {
            const size_t off = (w + j * workers) * CHUNK, len = std::min(CHUNK, bytes - off);
            CK(cudaMemcpyAsync(slot(w, (int)(j & 1)), src + off, len, cudaMemcpyDeviceToHost,
                               stream[w]));
            CK(cudaEventRecord(done[w][j & 1], stream[w]));
            return cudaSuccess;
        };
        CK(issue(0));
        for (size_t j = 0; j < mine; ++j) {
            if (j + 1 < mine) CK(issue(j + 1));  // next chunk streams while this one is drained
            CK(cudaEventSynchronize(done[w][j & 1]));
            const size_t off = (w + j * workers) * CHUNK, len = std::min(CHUNK, bytes - off);
            memcpy(dst + off, slot(w, (int)(j & 1)), len);
        }
        return cudaSuccess;
    }
    cudaError_t run(bool up, void* dst, const void* src, size_t bytes)
    {
        std::vector<cudaError_t> err(workers, cudaSuccess);
        std::vector<std::thread> pool;
        for (int w = 0; w < workers; ++w)
            pool.emplace_back([&, w] {
                err[w] = up ? up_worker(w, (char*)dst, (const char*)src, bytes)
                            : down_worker(w, (char*)dst, (const char*)src, bytes);
            });
        for (auto& t : pool) t.join();
        for (cudaError_t e : err)
            if (e != cudaSuccess) return e;
        return cudaSuccess;
    }
};

}  // namespace staging

// ---------------------------------------------------------------- fused time steps
constexpr int OX = 128, OY = 64;  // output tile per block
constexpr int TX = 32, TY = 16;   // 512 threads
constexpr int FUSE = 4;           // steps per launch

__device__ __forceinline__ int mirror(int g, int n)
{
    if (g >= 0 && g < n) return g;
    int m = g % (2 * n);
    if (m < 0) m += 2 * n;
    return m < n ? m : 2 * n - 1 - m;
}

template <int T>
constexpr size_t tile_bytes() { return 2 * sizeof(float) * (OX + 2 * T) * (OY + 2 * T); }

template <int T>
__global__ void __launch_bounds__(TX * TY, 2)
heat_fused(const float* __restrict__ src, float* __restrict__ dst, int rows, int cols, float alpha)
{
    constexpr int HX = OX + 2 * T, HY = OY + 2 * T;
    constexpr bool VEC = (T % 4 == 0);  // tile origin and row pitch then stay 16-byte aligned
    extern __shared__ __align__(16) float smem[];
    float* cur = smem;
    float* nxt = smem + HX * HY;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int bx = blockIdx.x * OX, by = blockIdx.y * OY;
    const int gx0 = bx - T, gy0 = by - T;

    if (VEC && (cols & 3) == 0 && gx0 >= 0 && gx0 + HX <= cols) {
        for (int q = tid; q < HY * (HX / 4); q += TX * TY) {
            const int r = q / (HX / 4), c = 4 * (q % (HX / 4));
            const float* p = src + (size_t)mirror(gy0 + r, rows) * cols + gx0 + c;
            *reinterpret_cast<float4*>(cur + r * HX + c) = __ldg(reinterpret_cast<const float4*>(p));
        }
    } else {
        for (int q = tid; q < HY * HX; q += TX * TY) {
            const int r = q / HX, c = q % HX;
            cur[q] = __ldg(src + (size_t)mirror(gy0 + r, rows) * cols + mirror(gx0 + c, cols));
        }
    }

#pragma unroll 1
    for (int s = 1; s <= T; ++s) {
        __syncthreads();
        for (int r = s + ty; r < HY - s; r += TY) {
            const float* up = cur + (r - 1) * HX;
            const float* mid = cur + r * HX;
            const float* dn = cur + (r + 1) * HX;
            float* out = nxt + r * HX;
            for (int c = s + tx; c < HX - s; c += TX) {
                const float u = mid[c];
                out[c] = u + alpha * (((up[c] + dn[c]) + (mid[c + 1] + mid[c - 1])) - 4.0f * u);
            }
        }
        float* t = cur;
        cur = nxt;
        nxt = t;
    }
    __syncthreads();

    if (VEC && (cols & 3) == 0 && bx + OX <= cols) {
        for (int q = tid; q < OY * (OX / 4); q += TX * TY) {
            const int r = q / (OX / 4), c = 4 * (q % (OX / 4));
            if (by + r < rows)
                *reinterpret_cast<float4*>(dst + (size_t)(by + r) * cols + bx + c) =
                    *reinterpret_cast<const float4*>(cur + (r + T) * HX + c + T);
        }
    } else {
        for (int q = tid; q < OY * OX; q += TX * TY) {
            const int r = q / OX, c = q % OX;
            if (by + r < rows && bx + c < cols)
                dst[(size_t)(by + r) * cols + bx + c] = cur[(r + T) * HX + c + T];
        }
    }
}

template <int T>
static cudaError_t launch_fused(const float* src, float* dst, int rows, int cols, float alpha,
                                cudaStream_t st)
{
    const dim3 grid((cols + OX - 1) / OX, (rows + OY - 1) / OY);
    if (grid.y > 65535) return cudaErrorInvalidConfiguration;
    CK(cudaFuncSetAttribute(heat_fused<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)tile_bytes<T>()));
    heat_fused<T><<<grid, dim3(TX, TY), tile_bytes<T>(), st>>>(src, dst, rows, cols, alpha);
    return cudaGetLastError();
}

static cudaError_t copy(staging::Ring& ring, bool up, void* dst, const void* src, size_t bytes)
{
    if (ring.workers) return ring.run(up, dst, src, bytes);
    return cudaMemcpy(dst, src, bytes, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
}

static cudaError_t solve(const float* grid_in, int rows, int cols, int steps, float alpha,
                         float* grid_out, float** d_a, float** d_b, staging::Ring& ring)
{
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    if (bytes >= 4 * staging::CHUNK) {  // small grids: pinned set-up would cost more than it saves
        unsigned hw = std::thread::hardware_concurrency();
        if (ring.open(hw >= 8 ? 4 : 2) != cudaSuccess) {  // no pinned memory: plain copies
            ring.close();
            cudaGetLastError();
        }
    }
    CK(cudaMalloc(d_a, bytes));
    CK(cudaMalloc(d_b, bytes));
    CK(copy(ring, true, *d_a, grid_in, bytes));

    float* cur = *d_a;
    float* nxt = *d_b;
    for (int left = steps; left > 0;) {
        const int t = std::min(left, FUSE);
        cudaError_t e = cudaSuccess;
        switch (t) {
            case 4: e = launch_fused<4>(cur, nxt, rows, cols, alpha, 0); break;
            case 3: e = launch_fused<3>(cur, nxt, rows, cols, alpha, 0); break;
            case 2: e = launch_fused<2>(cur, nxt, rows, cols, alpha, 0); break;
            default: e = launch_fused<1>(cur, nxt, rows, cols, alpha, 0); break;
        }
        CK(e);
        std::swap(cur, nxt);
        left -= t;
    }
    CK(cudaDeviceSynchronize());
    CK(copy(ring, false, grid_out, cur, bytes));
    return cudaSuccess;
}

extern "C" void solution_compute(const float* grid_in, int rows, int cols, int steps,
                                 float alpha, float* grid_out)
{
    if (rows <= 0 || cols <= 0) return;
    staging::Ring ring;
    float* d_a = nullptr;
    float* d_b = nullptr;
    cudaError_t e = solve(grid_in, rows, cols, steps, alpha, grid_out, &d_a, &d_b, ring);
    if (e != cudaSuccess) fprintf(stderr, "heat2d: %s\n", cudaGetErrorString(e));
    cudaFree(d_a);
    cudaFree(d_b);
    ring.close();
}
