// Case: a whole program whose host-side wrappers are named after the CPU side
// (scan_cpu_init, scan_cpu_run). The init wrapper launches nothing but allocates the device and
// pinned buffers the run wrapper uses: it sets up the solution, it does not verify it, so its
// pinned allocation counts. A function that compares results on the host is verification.
#include <cstdio>
#include <cuda_runtime.h>

static unsigned* d_count;
static unsigned* h_count;

__global__ void count_odd(const unsigned* v, int n, unsigned* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (v[i] & 1u)) atomicAdd(count, 1u);
}

void scan_cpu_init() {
    cudaMalloc(&d_count, sizeof(unsigned));
    cudaMallocHost(&h_count, sizeof(unsigned));  // expect: HST-02
}

unsigned scan_cpu_run(const unsigned* d_v, int n) {
    cudaMemset(d_count, 0, sizeof(unsigned));
    count_odd<<<(n + 255) / 256, 256>>>(d_v, n, d_count);
    cudaMemcpy(h_count, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost);
    return *h_count;
}

bool verify_cpu(const unsigned* h_v, int n, unsigned got) {
    unsigned* h_copy;
    cudaMallocHost(&h_copy, n * sizeof(unsigned));  // ok: HST-02
    unsigned want = 0;
    for (int i = 0; i < n; ++i) { h_copy[i] = h_v[i]; want += h_copy[i] & 1u; }
    cudaFreeHost(h_copy);
    return want == got;
}

int main() {
    const int n = 1 << 20;
    unsigned* h_v = new unsigned[n];
    for (int i = 0; i < n; ++i) h_v[i] = i * 2654435761u;
    unsigned* d_v;
    cudaMalloc(&d_v, n * sizeof(unsigned));
    cudaMemcpy(d_v, h_v, n * sizeof(unsigned), cudaMemcpyHostToDevice);
    scan_cpu_init();
    unsigned got = scan_cpu_run(d_v, n);
    printf("%u %s\n", got, verify_cpu(h_v, n, got) ? "ok" : "wrong");
    cudaFree(d_v);
    delete[] h_v;
    return 0;
}
