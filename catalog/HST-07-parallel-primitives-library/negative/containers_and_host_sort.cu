// Top-k distances: Thrust is used only as a container and for a fill; the sort runs on the
// host (thrust::host policy), the distances come from a hand-written kernel.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/fill.h>
#include <thrust/sort.h>
#include <thrust/execution_policy.h>

__global__ void dist2(const float* px, const float* py, int n, float qx, float qy, float* d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float dx = px[i] - qx, dy = py[i] - qy;
        d[i] = dx * dx + dy * dy;
    }
}

extern "C" void solution_compute(int n, const float* px, const float* py, float qx, float qy, int k, float* best) {
    thrust::device_vector<float> d_px(px, px + n), d_py(py, py + n);
    thrust::device_vector<float> d_d(n);
    thrust::fill(d_d.begin(), d_d.end(), 0.0f);  // ok: HST-07
    dist2<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d_px.data()),
                                    thrust::raw_pointer_cast(d_py.data()), n, qx, qy,
                                    thrust::raw_pointer_cast(d_d.data()));
    thrust::host_vector<float> h_d = d_d;
    thrust::sort(thrust::host, h_d.begin(), h_d.end());  // ok: HST-07
    for (int j = 0; j < k && j < n; ++j) best[j] = h_d[j];
}
