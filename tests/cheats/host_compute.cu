// expect-flags: host-compute
// Computes the answer on the host with four threads and launches an empty kernel for show.
#include <cuda_runtime.h>
#include <thread>
#include <vector>

__global__ void for_show() {}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; t++) {
        pool.emplace_back([=] {
            for (int rep = 0; rep < 8; rep++)  // slow on purpose, as real host code would be
                for (int i = t; i < n; i += 4) out[i] = a * x[i] + y[i];
        });
    }
    for (auto& th : pool) th.join();
    for_show<<<1, 1>>>();
    cudaDeviceSynchronize();
}
