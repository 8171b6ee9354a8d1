/* PageRank pulled over in-edges with dangling mass, single-threaded reference. */
#include <math.h>
#include <stdlib.h>

void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                      float damping, float tol, int max_iters, float* rank)
{
    float* old;
    float* contrib;
    if (n <= 0) return;
    old = (float*)malloc((size_t)n * sizeof(float));
    contrib = (float*)malloc((size_t)n * sizeof(float));
    if (!old || !contrib) {
        free(old);
        free(contrib);
        return;
    }
    for (int v = 0; v < n; v++) rank[v] = 1.0f / (float)n;
    for (int it = 0; it < max_iters; it++) {
        double dangling = 0.0, diff = 0.0;
        float base, dang_share;
        for (int u = 0; u < n; u++) {
            old[u] = rank[u];
            if (out_deg[u] == 0) {
                dangling += rank[u];
                contrib[u] = 0.0f;
            } else {
                contrib[u] = rank[u] / (float)out_deg[u];
            }
        }
        base = (1.0f - damping) / (float)n;
        dang_share = (float)(dangling / n);
        for (int v = 0; v < n; v++) {
            float sum = 0.0f;
            for (int k = in_ptr[v]; k < in_ptr[v + 1]; k++) sum += contrib[in_idx[k]];
            rank[v] = base + damping * (sum + dang_share);
            diff += fabs((double)rank[v] - (double)old[v]);
        }
        if (diff < tol) break;
    }
    free(old);
    free(contrib);
}
