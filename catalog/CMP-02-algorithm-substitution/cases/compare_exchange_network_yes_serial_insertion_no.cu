// Case: compare-exchange steps of sorting networks. merge_step is one step of a bitonic merge that
// the host launches once per (stage, step), with the partner i + half; block_sort runs the network
// in shared memory with a swap helper and a barrier per step. A thread's own insertion sort (a
// loop with no barrier) and a single conditional swap launched once are not networks.
__device__ void swap_vals(float &a, float &b)
{
    float t = a;
    a = b;
    b = t;
}

__global__ void merge_step(float *d, int half, int span)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i % (2 * half)) >= half)
        return;
    int p = i + half;
    bool up = ((i / span) % 2) == 0;
    if ((d[i] > d[p]) == up) {  // expect: CMP-02
        float t = d[i];
        d[i] = d[p];
        d[p] = t;
    }
}

__global__ void block_sort(float *d)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = d[blockIdx.x * 256 + t];
    __syncthreads();
    for (int len = 2; len <= 256; len *= 2) {
        for (int h = len / 2; h > 0; h /= 2) {
            int p = t + h;
            if ((t % (2 * h)) < h && (t & len) == 0 && s[t] > s[p])  // expect: CMP-02
                swap_vals(s[t], s[p]);
            __syncthreads();
        }
    }
    d[blockIdx.x * 256 + t] = s[t];
}

__global__ void own_top8(float *best, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    for (int j = 7; j > 0; --j) {
        if (best[t * 8 + j] < best[t * 8 + j - 1]) {  // ok: CMP-02
            float v = best[t * 8 + j];
            best[t * 8 + j] = best[t * 8 + j - 1];
            best[t * 8 + j - 1] = v;
        }
    }
}

__global__ void order_pairs(float *pairs, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n && pairs[2 * t] > pairs[2 * t + 1])  // ok: CMP-02
        swap_vals(pairs[2 * t], pairs[2 * t + 1]);
}

extern "C" void solution_compute(float *d, float *best, float *pairs, int n)
{
    for (int span = 1; (1 << span) <= n; ++span)
        for (int half = 1 << (span - 1); half > 0; half /= 2)
            merge_step<<<n / 256, 256>>>(d, half, 1 << span);
    block_sort<<<n / 256, 256>>>(d);
    own_top8<<<n / 256, 256>>>(best, n);
    order_pairs<<<n / 256, 256>>>(pairs, n);
}
