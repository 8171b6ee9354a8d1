// N-body accelerations with the host link in mind: the bodies go up as one pinned buffer of
// float4 (x, y, z, m) packed on the host, so there is a single host-to-device copy; the result
// comes back in chunks, each chunk's copy queued on its own stream right behind the kernel
// that computes it, so the early chunks travel while the later ones are still computing.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

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
constexpr int NSTREAMS = 4;

__global__ void accel_range(int i0, int i1, int n, const float4* __restrict__ body, float soft2,
                            float G, float* __restrict__ acc)
{
    const int i = i0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= i1) return;
    const float4 bi = body[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        const float4 bj = body[j];   // every thread reads the same j: served from cache
        const float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
        const float r2 = dx * dx + dy * dy + dz * dz + soft2;
        const float inv = 1.0f / sqrtf(r2);
        const float s = bj.w * (inv * inv * inv);
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
    acc[3 * (size_t)i] = G * ax;
    acc[3 * (size_t)i + 1] = G * ay;
    acc[3 * (size_t)i + 2] = G * az;
}

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    if (n <= 0) return;
    const size_t body_bytes = (size_t)n * sizeof(float4);
    const size_t acc_bytes = 3 * (size_t)n * sizeof(float);
    cudaStream_t streams[NSTREAMS] = {};
    cudaEvent_t uploaded = nullptr;
    float4* h_body = nullptr;
    float* h_acc = nullptr;
    float4* d_body = nullptr;
    float* d_acc = nullptr;
    // chunks of whole blocks, at least one block each
    int chunk = (n + NSTREAMS - 1) / NSTREAMS;
    chunk = (chunk + THREADS - 1) / THREADS * THREADS;

    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CK(cudaMallocHost(&h_body, body_bytes));
    CK(cudaMallocHost(&h_acc, acc_bytes));
    CK(cudaMallocAsync(&d_body, body_bytes, streams[0]));
    CK(cudaMallocAsync(&d_acc, acc_bytes, streams[0]));

    for (int i = 0; i < n; i++)
        h_body[i] = make_float4(pos[3 * (size_t)i], pos[3 * (size_t)i + 1], pos[3 * (size_t)i + 2],
                                mass[i]);
    CK(cudaMemcpyAsync(d_body, h_body, body_bytes, cudaMemcpyHostToDevice, streams[0]));
    CK(cudaEventRecord(uploaded, streams[0]));

    for (int c = 0; c * chunk < n; c++) {
        cudaStream_t s = streams[c % NSTREAMS];
        const int i0 = c * chunk;
        const int i1 = (i0 + chunk < n) ? i0 + chunk : n;
        CK(cudaStreamWaitEvent(s, uploaded, 0));
        accel_range<<<(i1 - i0 + THREADS - 1) / THREADS, THREADS, 0, s>>>(i0, i1, n, d_body, soft2,
                                                                          G, d_acc);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(h_acc + 3 * (size_t)i0, d_acc + 3 * (size_t)i0,
                           3 * (size_t)(i1 - i0) * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamSynchronize(streams[s]));
    memcpy(acc, h_acc, acc_bytes);

done:
    // all streams are idle here (or never got work), so the frees can go on stream 0
    for (int s = 0; s < NSTREAMS; s++)
        if (streams[s]) cudaStreamSynchronize(streams[s]);
    if (streams[0]) {
        if (d_body) cudaFreeAsync(d_body, streams[0]);
        if (d_acc) cudaFreeAsync(d_acc, streams[0]);
        cudaStreamSynchronize(streams[0]);
    }
    cudaFreeHost(h_body);
    cudaFreeHost(h_acc);
    if (uploaded) cudaEventDestroy(uploaded);
    for (int s = 0; s < NSTREAMS; s++)
        if (streams[s]) cudaStreamDestroy(streams[s]);
}
