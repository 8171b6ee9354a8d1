// heat2d, written around the PCIe link: the grid is pinned in place (cudaHostRegister) and moved
// in row bands on separate streams. The first time step of a band starts as soon as that band
// and its two neighbours have arrived, and the last time step of a band is copied back while the
// other bands are still computing. The steps in between run on the whole grid.
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "heat2d: %s -> %s\n", #call, cudaGetErrorString(e_));         \
            goto cleanup;                                                                 \
        }                                                                                 \
    } while (0)

constexpr int BANDS = 8;
constexpr size_t PIN_MIN_BYTES = 4u << 20;  // below this, registering costs more than it saves

// rows [r0, r1) of one step; neighbours outside the grid are clamped to the edge
__global__ void heat_rows(const float* __restrict__ src, float* __restrict__ dst, int rows,
                          int cols, int r0, int r1, float alpha)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = r0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= r1 || j >= cols) return;
    size_t row = (size_t)i * cols;
    size_t up = (size_t)(i > 0 ? i - 1 : 0) * cols;
    size_t down = (size_t)(i < rows - 1 ? i + 1 : rows - 1) * cols;
    float u = src[row + j];
    float w = src[row + (j > 0 ? j - 1 : 0)];
    float e = src[row + (j < cols - 1 ? j + 1 : cols - 1)];
    dst[row + j] = u + alpha * (((src[up + j] + src[down + j]) + (e + w)) - 4.0f * u);
}

static void launch_rows(const float* src, float* dst, int rows, int cols, int r0, int r1,
                        float alpha, cudaStream_t st)
{
    if (r1 <= r0) return;
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (r1 - r0 + 7) / 8);
    heat_rows<<<grid, block, 0, st>>>(src, dst, rows, cols, r0, r1, alpha);
}

extern "C" void solution_compute(const float* grid_in, int rows, int cols, int steps,
                                 float alpha, float* grid_out)
{
    if (rows <= 0 || cols <= 0) return;
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    const size_t row_bytes = (size_t)cols * sizeof(float);
    bool pinned_in = false, pinned_out = false;
    float *d_a = nullptr, *d_b = nullptr, *cur = nullptr, *nxt = nullptr;
    cudaStream_t main_st = nullptr;
    cudaStream_t band_st[BANDS] = {};
    cudaEvent_t ready = nullptr, mid = nullptr;
    cudaEvent_t arrived[BANDS] = {}, stepped[BANDS] = {}, finished[BANDS] = {};
    int r0[BANDS + 1];
    cudaMemPool_t pool;
    int dev = 0;

    for (int b = 0; b <= BANDS; ++b) r0[b] = (int)((long long)b * rows / BANDS);

    if (bytes >= PIN_MIN_BYTES) {
        pinned_in = cudaHostRegister((void*)grid_in, bytes, cudaHostRegisterDefault) == cudaSuccess;
        pinned_out = cudaHostRegister(grid_out, bytes, cudaHostRegisterDefault) == cudaSuccess;
        cudaGetLastError();  // an unpinned buffer still works, only slower
    }

    CK(cudaStreamCreateWithFlags(&main_st, cudaStreamNonBlocking));
    for (int b = 0; b < BANDS; ++b) {
        CK(cudaStreamCreateWithFlags(&band_st[b], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&arrived[b], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&stepped[b], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&finished[b], cudaEventDisableTiming));
    }
    CK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&mid, cudaEventDisableTiming));

    CK(cudaMallocAsync((void**)&d_a, bytes, main_st));
    CK(cudaMallocAsync((void**)&d_b, bytes, main_st));
    CK(cudaEventRecord(ready, main_st));

    // bands in
    for (int b = 0; b < BANDS; ++b) {
        CK(cudaStreamWaitEvent(band_st[b], ready, 0));
        size_t off = (size_t)r0[b] * cols;
        if (r0[b + 1] > r0[b])
            CK(cudaMemcpyAsync(d_a + off, grid_in + off, (r0[b + 1] - r0[b]) * row_bytes,
                               cudaMemcpyHostToDevice, band_st[b]));
        CK(cudaEventRecord(arrived[b], band_st[b]));
    }

    if (steps <= 0) {
        cur = d_a;
        for (int b = 0; b < BANDS; ++b) {
            size_t off = (size_t)r0[b] * cols;
            if (r0[b + 1] > r0[b])
                CK(cudaMemcpyAsync(grid_out + off, d_a + off, (r0[b + 1] - r0[b]) * row_bytes,
                                   cudaMemcpyDeviceToHost, band_st[b]));
        }
    } else {
        // first step, band by band, as soon as the neighbouring bands are in; with fewer rows
        for (int b = 0; b < BANDS; ++b) {  // than bands some are empty, so wait for all of them
            for (int c = rows < BANDS ? 0 : b - 1; c <= (rows < BANDS ? BANDS - 1 : b + 1); ++c)
                if (c != b && c >= 0 && c < BANDS) CK(cudaStreamWaitEvent(band_st[b], arrived[c], 0));
            launch_rows(d_a, d_b, rows, cols, r0[b], r0[b + 1], alpha, band_st[b]);
            CK(cudaGetLastError());
            if (steps == 1) {
                size_t off = (size_t)r0[b] * cols;
                if (r0[b + 1] > r0[b])
                    CK(cudaMemcpyAsync(grid_out + off, d_b + off, (r0[b + 1] - r0[b]) * row_bytes,
                                       cudaMemcpyDeviceToHost, band_st[b]));
            }
            CK(cudaEventRecord(stepped[b], band_st[b]));
        }
        if (steps >= 2) {
            for (int b = 0; b < BANDS; ++b) CK(cudaStreamWaitEvent(main_st, stepped[b], 0));
            cur = d_b;
            nxt = d_a;
            for (int s = 2; s < steps; ++s) {
                launch_rows(cur, nxt, rows, cols, 0, rows, alpha, main_st);
                CK(cudaGetLastError());
                float* t = cur;
                cur = nxt;
                nxt = t;
            }
            CK(cudaEventRecord(mid, main_st));
            // last step, band by band, each band copied out as soon as it is done
            for (int b = 0; b < BANDS; ++b) {
                CK(cudaStreamWaitEvent(band_st[b], mid, 0));
                launch_rows(cur, nxt, rows, cols, r0[b], r0[b + 1], alpha, band_st[b]);
                CK(cudaGetLastError());
                size_t off = (size_t)r0[b] * cols;
                if (r0[b + 1] > r0[b])
                    CK(cudaMemcpyAsync(grid_out + off, nxt + off, (r0[b + 1] - r0[b]) * row_bytes,
                                       cudaMemcpyDeviceToHost, band_st[b]));
            }
        }
    }
    for (int b = 0; b < BANDS; ++b) {
        CK(cudaEventRecord(finished[b], band_st[b]));
        CK(cudaStreamWaitEvent(main_st, finished[b], 0));
    }

cleanup:
    if (main_st) {
        for (int b = 0; b < BANDS; ++b)
            if (band_st[b] && finished[b]) {
                cudaEventRecord(finished[b], band_st[b]);
                cudaStreamWaitEvent(main_st, finished[b], 0);
            }
        if (d_a) cudaFreeAsync(d_a, main_st);
        if (d_b) cudaFreeAsync(d_b, main_st);
        cudaStreamSynchronize(main_st);
    }
    cudaDeviceSynchronize();
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
        cudaMemPoolTrimTo(pool, 0);  // hand the pool's memory back now, not at some later sync
    for (int b = 0; b < BANDS; ++b) {
        if (band_st[b]) cudaStreamDestroy(band_st[b]);
        if (arrived[b]) cudaEventDestroy(arrived[b]);
        if (stepped[b]) cudaEventDestroy(stepped[b]);
        if (finished[b]) cudaEventDestroy(finished[b]);
    }
    if (ready) cudaEventDestroy(ready);
    if (mid) cudaEventDestroy(mid);
    if (main_st) cudaStreamDestroy(main_st);
    if (pinned_in) cudaHostUnregister((void*)grid_in);
    if (pinned_out) cudaHostUnregister(grid_out);
}
