/* Explicit 2-D heat steps with clamped boundaries, single-threaded reference. */
#include <stdlib.h>
#include <string.h>

void solution_compute(const float* grid_in, int rows, int cols, int steps, float alpha,
                      float* grid_out)
{
    size_t cells = (size_t)rows * (size_t)cols;
    float* tmp;
    float* src;
    float* dst;
    if (cells == 0) return;
    if (steps <= 0) {
        memcpy(grid_out, grid_in, cells * sizeof(float));
        return;
    }
    tmp = (float*)malloc(cells * sizeof(float));
    if (!tmp) return;
    /* Ping-pong between tmp and grid_out so that the last step writes grid_out. */
    src = (float*)grid_in;
    dst = (steps % 2 == 1) ? grid_out : tmp;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < rows; i++) {
            const float* up = src + (size_t)(i > 0 ? i - 1 : 0) * cols;
            const float* mid = src + (size_t)i * cols;
            const float* down = src + (size_t)(i < rows - 1 ? i + 1 : rows - 1) * cols;
            float* out = dst + (size_t)i * cols;
            for (int j = 0; j < cols; j++) {
                float u = mid[j];
                float w = mid[j > 0 ? j - 1 : 0];
                float e = mid[j < cols - 1 ? j + 1 : cols - 1];
                out[j] = u + alpha * (((up[j] + down[j]) + (e + w)) - 4.0f * u);
            }
        }
        src = dst;
        dst = (dst == tmp) ? grid_out : tmp;
    }
    free(tmp);
}
