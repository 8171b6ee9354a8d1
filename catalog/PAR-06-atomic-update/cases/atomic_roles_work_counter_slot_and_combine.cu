// Case: atomic roles work counter slot and combine.
__global__ void k(const int* items, int n, int* next, int* out, int* count, int* total) {
    while (true) {
        int item = atomicAdd(next, 1);  // expect: LBL-01
        if (item >= n) return;
        int v = items[item];
        if (v > 0) {
            int slot = atomicAdd(count, 1);  // expect: PAR-06
            out[slot] = v;
        }
        atomicAdd(total, v);  // expect: PAR-06
    }
}
extern "C" void solution_compute(const int* items, int n, int* next, int* out, int* count, int* total) {
    k<<<132, 256>>>(items, n, next, out, count, total);
}
