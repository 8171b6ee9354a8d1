// Case: an access macro whose arguments span lines with a line comment after each; the
// expansion is joined onto one line, so the comments must go first (before, the whole file
// became unparseable and every label was lost).
#define OFFSET(row, col, ld) ((row) * (ld) + (col))
#define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])

__global__ void copy_tile(float* A, float* B, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    FETCH_FLOAT4(B[OFFSET(row, col, K)]) = FETCH_FLOAT4(A[OFFSET(  // expect: MEM-06
        row,  // row
        col,  // col
        K)]);
}

extern "C" void solution_compute(float* A, float* B, int M, int K) {
    copy_tile<<<dim3(K / 128, M / 8), dim3(32, 8)>>>(A, B, K);
}
