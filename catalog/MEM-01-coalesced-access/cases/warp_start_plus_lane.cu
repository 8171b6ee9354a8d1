// Case: each warp compares its own item against the items after it, 32 at a time, lane by
// lane: j = first + lane with first = item + 1 and item = global thread index / 32. The index
// mixes a term uniform across the warp (tid / 32) with the lane, and consecutive lanes read
// consecutive elements.
__global__ void count_closer(const float* __restrict__ pos, int* __restrict__ closer, int n,
                             float cutoff) {
    int item = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (item >= n) return;
    float p = pos[item];
    int count = 0;
    for (int first = item + 1; first < n; first += 32) {
        int j = first + lane;
        if (j < n && fabsf(pos[j] - p) < cutoff)  // expect: MEM-01
            count++;
    }
    for (int offset = 16; offset > 0; offset /= 2)
        count += __shfl_down_sync(0xffffffff, count, offset);
    if (lane == 0)
        closer[item] = count;
}

extern "C" void solution_compute(const float* pos, int* closer, int n, float cutoff) {
    count_closer<<<(n * 32 + 255) / 256, 256>>>(pos, closer, n, cutoff);
}
