// Case: the grid is sized from the SM count read through a library's device-info wrapper
// (`info.devices[dev].nsm`, `getNumSMs()`), not from cudaDeviceProp directly.
struct device_info { int nsm; };
struct cuda_info { device_info devices[16]; };
static cuda_info info;
static int getNumSMs() { return info.devices[0].nsm; }

__global__ void count_equal(const int* a, const int* b, int* out, long n, long chunk) {
    long start = (long)blockIdx.x * chunk;
    int c = 0;
    for (long i = start + threadIdx.x; i < start + chunk && i < n; i += blockDim.x)
        c += a[i] == b[i];
    atomicAdd(out, c);
}

extern "C" void solution_compute(const int* a, const int* b, int* out, long n) {
    const int nsm = info.devices[0].nsm;  // expect: PAR-11
    const long chunk = (n + 4 * nsm - 1) / (4 * nsm);
    count_equal<<<(n + chunk - 1) / chunk, 256>>>(a, b, out, n, chunk);
    const int sms = getNumSMs();  // expect: PAR-11
    count_equal<<<2 * sms, 256>>>(a, b, out, n, (n + 2 * sms - 1) / (2 * sms));
}
