/* 0/1 knapsack, one-row dynamic programme, single-threaded reference. */

void solution_compute(int n_items, const int* weights, const int* values, int capacity, int* best)
{
    if (capacity < 0) return;
    for (int c = 0; c <= capacity; c++) best[c] = 0;
    for (int i = 0; i < n_items; i++) {
        int w = weights[i], v = values[i];
        for (int c = capacity; c >= w; c--) {
            int cand = best[c - w] + v;
            if (cand > best[c]) best[c] = cand;
        }
    }
}
