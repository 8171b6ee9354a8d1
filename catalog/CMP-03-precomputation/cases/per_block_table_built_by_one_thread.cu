// Case: thread 0 of each block turns the key range into a small table of segment scales
// once (arithmetic, no math call), and every thread then reads the table for each of its
// elements in a grid-stride loop: invariant work computed once per block. A value that a thread
// picked by data broadcasts (the winner's move) is no table, and the rows loaded by the first
// thread of each row (a halo, threadIdx.y picks the row) are plain loads.
__global__ void bucket_of(const float* __restrict__ keys, float lo, float hi,
                          int* __restrict__ bucket, int n, int num_buckets) {
    __shared__ float lower[9];
    __shared__ float scale[8];
    if (threadIdx.x == 0) {
        for (int s = 0; s < 9; s++)
            lower[s] = lo + (hi - lo) * s / 8;  // expect: CMP-03
        for (int s = 0; s < 8; s++)
            scale[s] = (num_buckets / 8.0f) / (lower[s + 1] - lower[s]);  // expect: CMP-03
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float k = keys[i];
        int s = 0;
        while (s < 7 && k > lower[s + 1])
            s++;
        bucket[i] = s * (num_buckets / 8) + (int)((k - lower[s]) * scale[s]);
    }
}

__global__ void winner_moves(const int* __restrict__ best, float* __restrict__ out, int n) {
    __shared__ float move[2];
    int mine = threadIdx.x * 3 % 7;
    if (threadIdx.x == best[blockIdx.x]) {
        move[0] = mine + 1.0f;  // ok: CMP-03
        move[1] = mine * 2.0f;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] += move[0] * move[1];
}

__global__ void row_halo(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
    __shared__ float edge[16][2];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (threadIdx.x == 0)
        edge[threadIdx.y][0] = 0.5f * in[y * w + max(x - 1, 0)];  // ok: CMP-03
    __syncthreads();
    for (int r = 0; r < 4 && x < w && y < h; r++)
        out[y * w + x] += edge[threadIdx.y][0] * r;
}

extern "C" void solution_compute(const float* keys, float lo, float hi, int* bucket, int n,
                                 int num_buckets, const float* in, float* out, int w, int h) {
    bucket_of<<<64, 256>>>(keys, lo, hi, bucket, n, num_buckets);
    winner_moves<<<64, 256>>>(bucket, out, n);
    row_halo<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(in, out, w, h);
}
