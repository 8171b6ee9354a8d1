/* SPH poly6 density with a uniform cell list, single-threaded reference. */
#include <stdlib.h>

static int cell_coord(float v, float cell, int nc)
{
    int c = (int)(v / cell);
    if (c < 0) c = 0;
    if (c >= nc) c = nc - 1;
    return c;
}

void solution_compute(int n, const float* pos, float h, float mass, float box, float* density)
{
    const double pi = 3.14159265358979323846;
    int nc;
    size_t ncells;
    float cell, h2 = h * h;
    double h9 = (double)h * h * h * h * h * h * h * h * h;
    double coef = (double)mass * 315.0 / (64.0 * pi * h9);
    int *cell_of, *start, *order;
    if (n <= 0) return;
    nc = (int)(box / h);
    if (nc < 1) nc = 1;
    if (nc > 512) nc = 512;
    cell = box / (float)nc;
    ncells = (size_t)nc * nc * nc;
    cell_of = (int*)malloc((size_t)n * sizeof(int));
    start = (int*)calloc(ncells + 1, sizeof(int));
    order = (int*)malloc((size_t)n * sizeof(int));
    if (!cell_of || !start || !order) {
        free(cell_of);
        free(start);
        free(order);
        return;
    }
    /* Counting sort of particles by cell. */
    for (int i = 0; i < n; i++) {
        int cx = cell_coord(pos[3 * i], cell, nc);
        int cy = cell_coord(pos[3 * i + 1], cell, nc);
        int cz = cell_coord(pos[3 * i + 2], cell, nc);
        cell_of[i] = cx + nc * (cy + nc * cz);
        start[cell_of[i] + 1]++;
    }
    for (size_t c = 0; c < ncells; c++) start[c + 1] += start[c];
    {
        int* fill = (int*)malloc(ncells * sizeof(int));
        if (!fill) {
            free(cell_of);
            free(start);
            free(order);
            return;
        }
        for (size_t c = 0; c < ncells; c++) fill[c] = start[c];
        for (int i = 0; i < n; i++) order[fill[cell_of[i]]++] = i;
        free(fill);
    }
    for (int i = 0; i < n; i++) {
        float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        int cx = cell_coord(xi, cell, nc), cy = cell_coord(yi, cell, nc);
        int cz = cell_coord(zi, cell, nc);
        double sum = 0.0;
        for (int z = cz - 1; z <= cz + 1; z++) {
            if (z < 0 || z >= nc) continue;
            for (int y = cy - 1; y <= cy + 1; y++) {
                if (y < 0 || y >= nc) continue;
                for (int x = cx - 1; x <= cx + 1; x++) {
                    int c;
                    if (x < 0 || x >= nc) continue;
                    c = x + nc * (y + nc * z);
                    for (int k = start[c]; k < start[c + 1]; k++) {
                        int j = order[k];
                        float dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi;
                        float dz = pos[3 * j + 2] - zi;
                        float r2 = dx * dx + dy * dy + dz * dz;
                        if (r2 < h2) {
                            float q = h2 - r2;
                            sum += (double)(q * q * q);
                        }
                    }
                }
            }
        }
        density[i] = (float)(coef * sum);
    }
    free(cell_of);
    free(start);
    free(order);
}
