// Case: level synchronous bfs and pointer jumping.
__global__ void bfs(const int* rp, const int* adj, int* level, int n, int cur) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && level[v] == cur)  // expect: CMP-02
        for (int e = rp[v]; e < rp[v + 1]; ++e)
            if (level[adj[e]] < 0) level[adj[e]] = cur + 1;
}
__global__ void jump(int* p, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) p[v] = p[p[v]];  // expect: CMP-02
}
extern "C" void solution_compute(float* a, float* b, int n) {
bfs<<<1, 32>>>(0, 0, 0, n, 0);
jump<<<1, 32>>>(0, n);
}
