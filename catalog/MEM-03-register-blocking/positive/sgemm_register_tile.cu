#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

// 16x16 threads, each computing a 4x4 block of C held in registers.
__global__ void sgemm_4x4(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    float acc[TM][TN] = {}; // expect: MEM-03
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BK * BM; e += 256) {
            int r = e / BK, c = e % BK;
            As[c][r] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : 0.0f;
            int br = e / BN, bc = e % BN;
            Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(k0 + br) * N + col0 + bc] : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; ++kk) {
            for (int i = 0; i < TM; ++i) {
                float a = As[kk][ty * TM + i];
                for (int j = 0; j < TN; ++j) acc[i][j] += a * Bs[kk][tx * TN + j];
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}

extern "C" void solution_compute(const float* A, const float* B, float* C, int M, int N, int K) {
    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(float) * M * K);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, A, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_4x4<<<grid, 256>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}
