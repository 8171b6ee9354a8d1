// Case: an object keeps one device scratch buffer and reallocates it only when a call asks for
// more than it holds; every other call reuses it. A buffer allocated and freed by each call is
// not reuse.
#include <cuda_runtime.h>

__global__ void partial_sums(const float* x, int n, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[blockIdx.x % 4], x[i]);
}

class Summer {
public:
    ~Summer() { cudaFree(buf_); }

    float* Scratch(size_t bytes) {
        if (bytes > cap_) {
            cudaFree(buf_);
            cudaMalloc(&buf_, bytes);  // expect: HST-01
            cap_ = bytes;
        }
        return buf_;
    }

    void Run(const float* d_x, int n) {
        float* out = Scratch(4 * sizeof(float));
        cudaMemset(out, 0, 4 * sizeof(float));
        partial_sums<<<(n + 255) / 256, 256>>>(d_x, n, out);
    }

    void RunOnce(const float* d_x, int n) {
        float* tmp;
        cudaMalloc(&tmp, 4 * sizeof(float));  // ok: HST-01
        cudaMemset(tmp, 0, 4 * sizeof(float));
        partial_sums<<<(n + 255) / 256, 256>>>(d_x, n, tmp);
        cudaFree(tmp);
    }

private:
    float* buf_ = nullptr;
    size_t cap_ = 0;
};

extern "C" void solution_compute(const float* d_x, int n) {
    Summer s;
    s.Run(d_x, n);
    s.RunOnce(d_x, n);
}
