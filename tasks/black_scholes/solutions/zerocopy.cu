// Black-Scholes without a single cudaMemcpy: the caller's five arrays are page-locked and
// mapped into the device address space for the call, and the kernel reads the inputs and
// writes the prices straight over the host link. The transfers then overlap the arithmetic by
// construction. Warps move 16-byte vectors so every link request is a full 512-byte line.
// If the arrays cannot be mapped, the options go through device copies instead.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;

__device__ __forceinline__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float c = rsqrt2pi * expf(-0.5f * d * d) *
                    (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__device__ __forceinline__ void price(float s, float x, float t, float r, float v, float& call,
                                      float& put)
{
    const float sqrt_t = sqrtf(t);
    const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    const float d2 = d1 - v * sqrt_t;
    const float c1 = cnd(d1), c2 = cnd(d2);
    const float disc = expf(-r * t);
    call = s * c1 - x * disc * c2;
    put = x * disc * (1.0f - c2) - s * (1.0f - c1);
}

// All five pointers 16-byte aligned: quads of options, then a scalar tail.
__global__ void __launch_bounds__(THREADS)
bs_vec4(size_t n, const float* __restrict__ S, const float* __restrict__ X,
        const float* __restrict__ T, float r, float v, float* __restrict__ call,
        float* __restrict__ put)
{
    const size_t quads = n / 4;
    const size_t stride = (size_t)gridDim.x * THREADS;
    for (size_t q = blockIdx.x * (size_t)THREADS + threadIdx.x; q < quads; q += stride) {
        const float4 s = reinterpret_cast<const float4*>(S)[q];
        const float4 x = reinterpret_cast<const float4*>(X)[q];
        const float4 t = reinterpret_cast<const float4*>(T)[q];
        float4 c, p;
        price(s.x, x.x, t.x, r, v, c.x, p.x);
        price(s.y, x.y, t.y, r, v, c.y, p.y);
        price(s.z, x.z, t.z, r, v, c.z, p.z);
        price(s.w, x.w, t.w, r, v, c.w, p.w);
        reinterpret_cast<float4*>(call)[q] = c;
        reinterpret_cast<float4*>(put)[q] = p;
    }
    if (blockIdx.x == 0 && threadIdx.x < n - 4 * quads) {
        const size_t i = 4 * quads + threadIdx.x;
        price(S[i], X[i], T[i], r, v, call[i], put[i]);
    }
}

__global__ void __launch_bounds__(THREADS)
bs_scalar(size_t n, const float* __restrict__ S, const float* __restrict__ X,
          const float* __restrict__ T, float r, float v, float* __restrict__ call,
          float* __restrict__ put)
{
    const size_t stride = (size_t)gridDim.x * THREADS;
    for (size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x; i < n; i += stride)
        price(S[i], X[i], T[i], r, v, call[i], put[i]);
}

static bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    if (n <= 0) return;
    const size_t count = (size_t)n, bytes = count * sizeof(float);
    void* host[5] = {const_cast<float*>(S), const_cast<float*>(X), const_cast<float*>(T), call, put};
    bool mapped[5] = {false, false, false, false, false};
    float* dev[5] = {};      // device view of each array
    float* copies[5] = {};   // device buffers, only on the fallback path
    bool all_mapped = true, vec = true;
    int device = 0, sms = 1, per_sm = 1, blocks = 1;

    CK(cudaGetDevice(&device));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    for (int a = 0; a < 5; a++) {
        mapped[a] = cudaHostRegister(host[a], bytes, cudaHostRegisterMapped) == cudaSuccess &&
                    cudaHostGetDevicePointer((void**)&dev[a], host[a], 0) == cudaSuccess;
        all_mapped = all_mapped && mapped[a];
    }
    cudaGetLastError();   // clear a failed registration; the fallback handles it
    if (!all_mapped) {
        for (int a = 0; a < 5; a++) {
            CK(cudaMalloc(&copies[a], bytes));
            dev[a] = copies[a];
        }
        for (int a = 0; a < 3; a++) CK(cudaMemcpy(copies[a], host[a], bytes, cudaMemcpyHostToDevice));
    }
    for (int a = 0; a < 5; a++) vec = vec && aligned16(dev[a]);

    // enough resident warps to keep many link requests in flight
    if (vec) {
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bs_vec4, THREADS, 0));
        blocks = sms * (per_sm > 0 ? per_sm : 1);
        const size_t need = (count / 4 + THREADS - 1) / THREADS;
        if ((size_t)blocks > need) blocks = (int)(need > 0 ? need : 1);
        bs_vec4<<<blocks, THREADS>>>(count, dev[0], dev[1], dev[2], r, v, dev[3], dev[4]);
    } else {
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bs_scalar, THREADS, 0));
        blocks = sms * (per_sm > 0 ? per_sm : 1);
        const size_t need = (count + THREADS - 1) / THREADS;
        if ((size_t)blocks > need) blocks = (int)need;
        bs_scalar<<<blocks, THREADS>>>(count, dev[0], dev[1], dev[2], r, v, dev[3], dev[4]);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());   // the prices are in host memory once the kernel is done
    if (!all_mapped) {
        CK(cudaMemcpy(call, copies[3], bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(put, copies[4], bytes, cudaMemcpyDeviceToHost));
    }
done:
    for (int a = 0; a < 5; a++) {
        if (mapped[a]) cudaHostUnregister(host[a]);
        cudaFree(copies[a]);
    }
}
