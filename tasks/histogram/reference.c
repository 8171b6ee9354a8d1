/* Integer histogram, single-threaded reference. */
#include <string.h>

void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    if (num_bins <= 0) return;
    memset(hist, 0, (size_t)num_bins * sizeof(unsigned int));
    for (int i = 0; i < n; i++) hist[keys[i]]++;
}
