/* Pairwise Euclidean distances, single-threaded reference. */
#include <math.h>
#include <stddef.h>

void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    for (int i = 0; i < n; i++) {
        const float* x = X + (size_t)i * d;
        for (int j = 0; j < m; j++) {
            const float* y = Y + (size_t)j * d;
            float acc = 0.0f;
            for (int k = 0; k < d; k++) {
                float diff = x[k] - y[k];
                acc += diff * diff;
            }
            dist[(size_t)i * m + j] = sqrtf(acc);
        }
    }
}
