// Case: after the particles are sorted by cell, reorder_particles copies every particle array
// into sort order (dst[i] = src[perm[i]]), and split_samples also splits the gathered record into
// two arrays, so the kernels that follow read neighbours from consecutive addresses. A single
// gathered array (a lookup), a value computed from gathered elements, and a gather into shared
// memory are ordinary gathers.
struct Sample { float re, im, kx, ky; };

__global__ void reorder_particles(const unsigned *perm, const float4 *pos, float4 *pos_sorted,
                                  const float4 *vel, float4 *vel_sorted, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned p = perm[i];
    pos_sorted[i] = pos[p];  // expect: MEM-07
    vel_sorted[i] = vel[p];  // expect: MEM-07
}

__global__ void split_samples(const unsigned *order, const Sample *in, float2 *val, float2 *loc,
                              int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned src = order[i];
    Sample s = in[src];
    float2 v, k;
    v.x = s.re;
    v.y = s.im;
    k.x = s.kx;
    k.y = s.ky;
    val[i] = v;  // expect: MEM-07
    loc[i] = k;  // expect: MEM-07
}

__global__ void lookups(const int *ids, const float *table, float *rows, const float *w,
                        float *scaled, int n)
{
    __shared__ float stage[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int id = ids[i];
    rows[i] = table[id];  // ok: MEM-07
    scaled[i] = 2.0f * w[id];  // ok: MEM-07
    stage[threadIdx.x] = w[id];  // ok: MEM-07
    __syncthreads();
    rows[i] += stage[(threadIdx.x + 1) % 256];
}

extern "C" void solution_compute(const unsigned *perm, const float4 *pos, float4 *pos_sorted,
                                 const float4 *vel, float4 *vel_sorted, const Sample *in,
                                 float2 *val, float2 *loc, const int *ids, const float *table,
                                 float *rows, const float *w, float *scaled, int n)
{
    reorder_particles<<<(n + 255) / 256, 256>>>(perm, pos, pos_sorted, vel, vel_sorted, n);
    split_samples<<<(n + 255) / 256, 256>>>(perm, in, val, loc, n);
    lookups<<<(n + 255) / 256, 256>>>(ids, table, rows, w, scaled, n);
}
