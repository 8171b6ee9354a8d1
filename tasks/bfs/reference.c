/* Breadth-first search levels with a FIFO queue, single-threaded reference. */
#include <stdlib.h>

void solution_compute(int n, const int* row_ptr, const int* col_idx, int source, int* levels)
{
    int* queue;
    int head = 0, tail = 0;
    if (n <= 0) return;
    for (int v = 0; v < n; v++) levels[v] = -1;
    if (source < 0 || source >= n) return;
    queue = (int*)malloc((size_t)n * sizeof(int));
    if (!queue) return;
    levels[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        int u = queue[head++];
        int next = levels[u] + 1;
        for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
            int v = col_idx[k];
            if (levels[v] < 0) {
                levels[v] = next;
                queue[tail++] = v;
            }
        }
    }
    free(queue);
}
