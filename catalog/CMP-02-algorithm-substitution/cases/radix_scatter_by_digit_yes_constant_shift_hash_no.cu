// Case: radix sort passes written inside the kernels, with no host loop over shifts. scatter_pass
// moves each key to the slot its digit's offset gives; split_bits ranks keys by one bit at a time
// in shared memory and stores each key at its rank. Storing the digit itself, and placing a key by
// fixed bits of it (a hash bucket, shift 16 a constant), are not sort passes.
constexpr int THREADS = 256;

__global__ void scatter_pass(const unsigned *keys, unsigned *out, const unsigned *digit_start,
                             unsigned start_bit, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned k = keys[i];
    unsigned d = (k >> start_bit) & 0xFu;
    unsigned slot = digit_start[d * gridDim.x + blockIdx.x] + threadIdx.x;
    out[slot] = k;  // expect: CMP-02
}

__global__ void split_bits(unsigned *keys, unsigned first_bit, unsigned bits)
{
    __shared__ unsigned s[THREADS];
    __shared__ unsigned zeros[THREADS];
    int t = threadIdx.x;
    uint2 key;
    key.x = keys[blockIdx.x * THREADS + t];
    key.y = 0;
    for (unsigned b = first_bit; b < first_bit + bits; ++b) {
        uint2 flag;
        flag.x = !((key.x >> b) & 1u);
        zeros[t] = flag.x;
        __syncthreads();
        unsigned before = 0, total = 0;
        for (int j = 0; j < THREADS; ++j) {
            before += j < t ? zeros[j] : 0;
            total += zeros[j];
        }
        uint2 rank;
        rank.x = flag.x ? before : total + t - before;
        __syncthreads();
        s[rank.x] = key.x;  // expect: CMP-02
        __syncthreads();
        key.x = s[t];
        __syncthreads();
    }
    keys[blockIdx.x * THREADS + t] = key.x;
}

__global__ void digits_and_buckets(const unsigned *keys, unsigned *digit, unsigned *bucket,
                                   unsigned shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned k = keys[i];
    digit[i] = (k >> shift) & 0xFFu;  // ok: CMP-02
    unsigned h = (k >> 16) & 1023u;
    bucket[h] = k;  // ok: CMP-02
}

extern "C" void solution_compute(unsigned *keys, unsigned *out, const unsigned *starts,
                                 unsigned *digit, unsigned *bucket, int n)
{
    split_bits<<<n / THREADS, THREADS>>>(keys, 0, 4);
    scatter_pass<<<n / THREADS, THREADS>>>(keys, out, starts, 0, n);
    digits_and_buckets<<<n / THREADS, THREADS>>>(keys, digit, bucket, 4, n);
}
