// Case: counting sort into cells computed by another kernel.
__global__ void cells(const float* x, int n, float h, int* cell_of) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cell_of[i] = (int)(x[i] / h);
}
__global__ void place(const int* cell_of, int n, int* fill, int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) order[atomicAdd(&fill[cell_of[i]], 1)] = i;  // expect: LBL-04
}
__global__ void place_input(const int* key, int n, int* fill, int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) order[atomicAdd(&fill[key[i]], 1)] = i;
}
extern "C" void solution_compute(const float* x, const int* keys, int n, float h, int* order) {
    int *d_cell, *d_fill, *d_keys;
    cells<<<n / 256, 256>>>(x, n, h, d_cell);
    place<<<n / 256, 256>>>(d_cell, n, d_fill, order);
    place_input<<<n / 256, 256>>>(d_keys, n, d_fill, order);
}
