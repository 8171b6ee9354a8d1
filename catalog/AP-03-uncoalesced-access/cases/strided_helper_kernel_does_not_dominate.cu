// Case: the heavy kernel (a loop over the whole column per thread, launched once per step of a
// host loop) reads coalesced; a small helper kernel scales one column with a stride of n between
// threads, once per step. The strided accesses are a lower order of the work than the heavy
// kernel's, so they do not make the run uncoalesced (model.kernel_weights).
// ok: AP-03
#include <cuda_runtime.h>

__global__ void scale_column(float* q, const float* a, const float* r, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i * n + k] = a[i * n + k] / r[k * n + k];
}

__global__ void update_rest(float* a, const float* q, float* r, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j <= k || j >= n) return;
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += q[i * n + k] * a[i * n + j];
    r[k * n + j] = s;
    for (int i = 0; i < n; i++) a[i * n + j] -= q[i * n + k] * s;
}

void solution_compute(float* a, float* q, float* r, int n) {
    for (int k = 0; k < n; k++) {
        scale_column<<<(n + 255) / 256, 256>>>(q, a, r, n, k);
        update_rest<<<(n + 255) / 256, 256>>>(a, q, r, n, k);
    }
}
