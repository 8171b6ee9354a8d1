/* Finite-horizon inventory replenishment DP with lost sales, single-threaded reference. */
#include <stdlib.h>

void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                      const float* demand_pmf, float order_cost, float fixed_cost,
                      float holding_cost, float shortage_cost, float* value)
{
    int states = max_inv + 1;
    float* zero;
    float* expected; /* L_t(y) */
    if (horizon <= 0 || max_inv < 0) return;
    zero = (float*)calloc((size_t)states, sizeof(float));
    expected = (float*)malloc((size_t)states * sizeof(float));
    if (!zero || !expected) {
        free(zero);
        free(expected);
        return;
    }
    for (int t = horizon - 1; t >= 0; t--) {
        const float* pmf = demand_pmf + (size_t)t * (max_demand + 1);
        const float* next = (t == horizon - 1) ? zero : value + (size_t)(t + 1) * states;
        float* cur = value + (size_t)t * states;
        for (int y = 0; y < states; y++) {
            double acc = 0.0;
            for (int d = 0; d <= max_demand; d++) {
                int left = y - d;
                float cost = left >= 0 ? holding_cost * (float)left + next[left]
                                       : shortage_cost * (float)(-left) + next[0];
                acc += (double)(pmf[d] * cost);
            }
            expected[y] = (float)acc;
        }
        for (int x = 0; x < states; x++) {
            int top = x + max_order < max_inv ? x + max_order : max_inv;
            float best = expected[x];
            for (int y = x + 1; y <= top; y++) {
                float c = fixed_cost + order_cost * (float)(y - x) + expected[y];
                if (c < best) best = c;
            }
            cur[x] = best;
        }
    }
    free(zero);
    free(expected);
}
