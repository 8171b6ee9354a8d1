/* Smith-Waterman local alignment scores with a linear gap, single-threaded reference. */
#include <stdlib.h>

static int max2(int x, int y) { return x > y ? x : y; }

void solution_compute(int num_pairs, const char* a_seqs, const int* a_off, const int* a_len,
                      const char* b_seqs, const int* b_off, const int* b_len, int match,
                      int mismatch, int gap, int* scores)
{
    int max_b = 0;
    int* row;
    for (int p = 0; p < num_pairs; p++) max_b = max2(max_b, b_len[p]);
    row = (int*)malloc((size_t)(max_b + 1) * sizeof(int));
    if (!row) return;
    for (int p = 0; p < num_pairs; p++) {
        const char* a = a_seqs + a_off[p];
        const char* b = b_seqs + b_off[p];
        int la = a_len[p], lb = b_len[p], best = 0;
        /* row[j] holds H[i-1][j] before it is overwritten with H[i][j]. */
        for (int j = 0; j <= lb; j++) row[j] = 0;
        for (int i = 1; i <= la; i++) {
            int diag = 0; /* H[i-1][j-1] */
            int left = 0; /* H[i][j-1] */
            char ai = a[i - 1];
            for (int j = 1; j <= lb; j++) {
                int up = row[j];
                int h = diag + (ai == b[j - 1] ? match : mismatch);
                h = max2(h, up - gap);
                h = max2(h, left - gap);
                h = max2(h, 0);
                diag = up;
                row[j] = h;
                left = h;
                best = max2(best, h);
            }
        }
        scores[p] = best;
    }
    free(row);
}
