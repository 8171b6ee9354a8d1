// expect-flags: host-compute
// Computes the answer on the host in one thread, writes it straight into the output and
// launches a one-thread kernel for show. At the small size the host loop is shorter than the
// launch and the synchronisation, so the host's share of the call is small: only the
// signature (no upload, no fetch, a token launch, an idle device) gives it away at every size.
#include <cuda_runtime.h>

__global__ void token(int* flag)
{
    if (flag) *flag = 1;
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    for (int i = 0; i < n; i++) out[i] = a * x[i] + y[i];
    token<<<1, 1>>>(nullptr);
    cudaDeviceSynchronize();
}
