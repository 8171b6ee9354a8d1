#include <cuda_runtime.h>

// Binary descriptors of 256 bits (8 words): Hamming distance by XOR and population count, and a
// warp-aggregated match count from a ballot.
__global__ void hamming_best(const unsigned* q, const unsigned* db, int ndb, int* best, int* matches, int thr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int d = 1 << 30;
    if (i < ndb) {
        d = 0;
        for (int w = 0; w < 8; ++w) d += __popc(q[w] ^ db[i * 8 + w]); // expect: CMP-08
        atomicMin(best, d);
    }
    unsigned close = __ballot_sync(0xffffffffu, d <= thr); // expect: CMP-08
    if ((threadIdx.x & 31) == 0) atomicAdd(matches, __popc(close)); // expect: CMP-08
}

extern "C" void solution_compute(const unsigned* q, const unsigned* db, int ndb, int thr, int* out) {
    unsigned *dq, *ddb; int* dres;
    cudaMalloc(&dq, sizeof(unsigned) * 8);
    cudaMalloc(&ddb, sizeof(unsigned) * 8 * ndb);
    cudaMalloc(&dres, sizeof(int) * 2);
    cudaMemcpy(dq, q, sizeof(unsigned) * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(ddb, db, sizeof(unsigned) * 8 * ndb, cudaMemcpyHostToDevice);
    int init[2] = {1 << 30, 0};
    cudaMemcpy(dres, init, sizeof(init), cudaMemcpyHostToDevice);
    hamming_best<<<(ndb + 255) / 256, 256>>>(dq, ddb, ndb, dres, dres + 1, thr);
    cudaMemcpy(out, dres, sizeof(int) * 2, cudaMemcpyDeviceToHost);
    cudaFree(dq); cudaFree(ddb); cudaFree(dres);
}
