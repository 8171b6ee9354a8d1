/* Power iteration with CSR SpMV, single-threaded reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                      const float* x0, int iters, float* x_out)
{
    float* y;
    if (n <= 0) return;
    memcpy(x_out, x0, (size_t)n * sizeof(float));
    y = (float*)malloc((size_t)n * sizeof(float));
    if (!y) return;
    for (int it = 0; it < iters; it++) {
        double sq = 0.0;
        for (int i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
                acc += vals[k] * x_out[col_idx[k]];
            y[i] = acc;
            sq += (double)acc * (double)acc;
        }
        if (sq > 0.0) {
            float norm = (float)sqrt(sq);
            for (int i = 0; i < n; i++) x_out[i] = y[i] / norm;
        } else {
            memcpy(x_out, y, (size_t)n * sizeof(float));
        }
    }
    free(y);
}
