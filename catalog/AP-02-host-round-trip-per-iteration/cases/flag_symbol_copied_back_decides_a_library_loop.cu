// Case: a library routine (no solution_compute: every host function is a root) relaxes labels
// until a pass changes nothing. The kernel takes its image as a struct by value and reports
// changes through a __device__ flag that the host copies back each pass to decide whether to go
// on: a round trip per iteration, not a loop repeating the same work for timing.
#include <cuda_runtime.h>

struct Image {
    int* labels;
    int width;
    int height;
};

__device__ int changed_flag;

__global__ void relax(Image img) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= img.width || y >= img.height) return;
    int i = y * img.width + x;
    int best = img.labels[i];
    if (x > 0) best = min(best, img.labels[i - 1]);
    if (y > 0) best = min(best, img.labels[i - img.width]);
    if (best < img.labels[i]) {
        img.labels[i] = best;
        changed_flag = 1;
    }
}

void label_components(Image img) {
    dim3 block(16, 16);
    dim3 grid((img.width + 15) / 16, (img.height + 15) / 16);
    int changed = 1;
    while (changed) {
        changed = 0;
        cudaMemcpyToSymbol(changed_flag, &changed, sizeof(int));
        relax<<<grid, block>>>(img);
        cudaMemcpyFromSymbol(&changed, changed_flag, sizeof(int));  // expect: AP-02
    }
}
