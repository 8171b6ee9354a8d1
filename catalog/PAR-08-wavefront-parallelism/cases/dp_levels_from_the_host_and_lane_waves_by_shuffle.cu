// Case: a 0/1 knapsack DP swept one item (one level) per launch: the threads compute every
// capacity of the level at once from the previous level (double buffered and swapped), keeping
// the better of two candidates. A second kernel runs a DP wave across the lanes of a warp: lane
// l takes cell (l, s - l) at step s and gets its neighbour through a shuffle.
// A loop over chunks of independent inputs, with a kernel that also keeps a maximum, is no
// wavefront: nothing a pass reads was written by an earlier pass.
#include <cuda_runtime.h>
#include <utility>

__global__ void item_level(int capacity, int w, int v, const int* prev, int* next) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > capacity) return;
    int keep = prev[c];
    if (c >= w && prev[c - w] + v > keep) keep = prev[c - w] + v;
    next[c] = keep;
}

__global__ void lane_waves(const char* a, const char* b, int lb, int* out) {
    int lane = threadIdx.x & 31;
    int h = 0, diag = 0, best = 0;
    char ai = a[lane];
    for (int s = 0; s < lb + 31; ++s) {  // expect: PAR-08
        int up = __shfl_up_sync(0xffffffffu, h, 1);
        int j = s - lane;
        if (j < 0 || j >= lb) continue;
        h = max(max(diag + (ai == b[j] ? 2 : -1), 0), up - 1);
        diag = up;
        best = max(best, h);
    }
    out[lane] = best;
}

__global__ void chunk_max(const float* in, float* out, int i0, int i1) {
    int i = i0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= i1) return;
    float m = in[i];
    for (int k = 1; k < 4 && i - k >= i0; k++) m = fmaxf(m, in[i - k]);
    out[i] = m;
}

void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                      int* d_a, int* d_b, const char* d_x, const char* d_y, int lb, int* d_out,
                      const float* d_in, float* d_max, int n, int chunk) {
    int blocks = (capacity + 256) / 256;
    for (int i = 0; i < n_items; i++) {
        item_level<<<blocks, 256>>>(capacity, weights[i], values[i], d_a, d_b);  // expect: PAR-08
        std::swap(d_a, d_b);
    }
    lane_waves<<<1, 32>>>(d_x, d_y, lb, d_out);
    for (int c = 0; c * chunk < n; c++) {
        int i0 = c * chunk, i1 = i0 + chunk < n ? i0 + chunk : n;
        chunk_max<<<(i1 - i0 + 255) / 256, 256>>>(d_in, d_max, i0, i1);  // ok: PAR-08
    }
}
