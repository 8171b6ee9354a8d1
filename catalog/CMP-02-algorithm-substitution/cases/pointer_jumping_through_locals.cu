// Case: pointer jumping written through locals. find_root halves the path (each visited element
// takes its grandparent: next = p[cur]; p[prev] = next) and rank_list jumps a list whose element
// packs the successor and the distance (node = l[i]; l[i] = f(l[node >> 32])). Gathering an
// element of the same array through another index array, and counting into a table indexed by
// a key, follow no pointer of the array itself.
__device__ int find_root(int v, int *parent)
{
    int cur = parent[v];
    int prev = v;
    int next;
    while (cur != (next = parent[cur])) {
        parent[prev] = next;  // expect: CMP-02
        prev = cur;
        cur = next;
    }
    return cur;
}

__global__ void roots(int *parent, int *label, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        label[v] = find_root(v, parent);
}

__global__ void rank_list(long long *list, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long node = list[i];
    while ((node >> 32) != 0xffffffffLL) {
        long long succ = list[node >> 32];
        long long packed = (succ & 0xffffffff00000000LL) + (node & 0xffffffffLL) +
                           (succ & 0xffffffffLL);
        list[i] = packed;  // expect: CMP-02
        node = packed;
        __syncthreads();
    }
}

__global__ void gather_and_count(float *a, const int *order, int *counts, const int *keys, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int src = order[i];
    float v = a[src + n];
    a[i] = v;  // ok: CMP-02
    int k = keys[i];
    counts[k] = counts[k] + 1;  // ok: CMP-02
}

extern "C" void solution_compute(int *parent, int *label, long long *list, float *a,
                                 const int *order, int *counts, const int *keys, int n)
{
    roots<<<(n + 255) / 256, 256>>>(parent, label, n);
    rank_list<<<(n + 255) / 256, 256>>>(list, n);
    gather_and_count<<<(n + 255) / 256, 256>>>(a, order, counts, keys, n);
}
