#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

struct is_flagged {
    const int* flags;
    __host__ __device__ bool operator()(int v) const { return flags[v] != 0; }
};

// Connected components by min-label propagation. Each round only the vertices
// whose label changed are kept in a compacted active list.
__global__ void propagate(const int* rp, const int* ci, const int* active, int n_active,
                          int* label, int* changed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_active) return;
    int v = active[t];
    int l = label[v];
    for (int e = rp[v]; e < rp[v + 1]; ++e) {
        int u = ci[e];
        if (l < label[u]) {
            atomicMin(&label[u], l);
            changed[u] = 1;
        }
    }
}

__global__ void init_labels(int* label, int* active, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        label[v] = v;
        active[v] = v;
    }
}

extern "C" void solution_compute(int n, int m, const int* rp, const int* ci, int* labels) {
    int *drp, *dci, *dlabel, *dactive, *dchanged;
    cudaMalloc(&drp, (n + 1) * sizeof(int));
    cudaMalloc(&dci, m * sizeof(int));
    cudaMalloc(&dlabel, n * sizeof(int));
    cudaMalloc(&dactive, n * sizeof(int));
    cudaMalloc(&dchanged, n * sizeof(int));
    cudaMemcpy(drp, rp, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dci, ci, m * sizeof(int), cudaMemcpyHostToDevice);
    init_labels<<<(n + 255) / 256, 256>>>(dlabel, dactive, n);
    int n_active = n;
    while (n_active > 0) {
        cudaMemset(dchanged, 0, n * sizeof(int));
        propagate<<<(n_active + 255) / 256, 256>>>(drp, dci, dactive, n_active, dlabel, dchanged);
        int* end = thrust::copy_if(thrust::device, thrust::make_counting_iterator(0),  // expect: LBL-03
                                   thrust::make_counting_iterator(n), dactive, is_flagged{dchanged});
        n_active = (int)(end - dactive);
    }
    cudaMemcpy(labels, dlabel, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dci);
    cudaFree(dlabel);
    cudaFree(dactive);
    cudaFree(dchanged);
}
