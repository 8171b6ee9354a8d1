// Independent jobs of very different lengths: the host sorts the job indices longest first and
// a persistent kernel takes them from an atomic queue in that order, so the long jobs start
// early and the tail is short.
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

__global__ void run_jobs(const int* order, const int* start, const int* len, const float* x,
                         float* out, int jobs, int* next) {
    __shared__ int job;
    for (;;) {
        if (threadIdx.x == 0) job = atomicAdd(next, 1);
        __syncthreads();
        if (job >= jobs) return;
        int j = order[job];
        float acc = 0.0f;
        for (int i = threadIdx.x; i < len[j]; i += blockDim.x) acc += x[start[j] + i];
        atomicAdd(&out[j], acc);
        __syncthreads();
    }
}

extern "C" void solution_compute(int jobs, const int* start, const int* len, int total,
                                 const float* x, float* out) {
    std::vector<int> order(jobs);
    for (int j = 0; j < jobs; ++j) order[j] = j;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return len[a] > len[b]; });  // expect: LBL-04  // ok: AP-05
    int *d_order, *d_start, *d_len, *d_next;
    float *d_x, *d_out;
    cudaMalloc(&d_order, jobs * sizeof(int));
    cudaMalloc(&d_start, jobs * sizeof(int));
    cudaMalloc(&d_len, jobs * sizeof(int));
    cudaMalloc(&d_next, sizeof(int));
    cudaMalloc(&d_x, total * sizeof(float));
    cudaMalloc(&d_out, jobs * sizeof(float));
    cudaMemcpy(d_order, order.data(), jobs * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_start, start, jobs * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_len, len, jobs * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, total * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_next, 0, sizeof(int));
    cudaMemset(d_out, 0, jobs * sizeof(float));
    run_jobs<<<132, 256>>>(d_order, d_start, d_len, d_x, d_out, jobs, d_next);
    cudaMemcpy(out, d_out, jobs * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_order); cudaFree(d_start); cudaFree(d_len); cudaFree(d_next);
    cudaFree(d_x); cudaFree(d_out);
}
