/* Direct-sum softened gravitational accelerations (all pairs), single-threaded reference. */
#include <math.h>
#include <stddef.h>

void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                      float* acc)
{
    for (int i = 0; i < n; i++) {
        float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1], zi = pos[3 * (size_t)i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; j++) {
            float dx, dy, dz, r2, inv, s;
            if (j == i) continue;
            dx = pos[3 * (size_t)j] - xi;
            dy = pos[3 * (size_t)j + 1] - yi;
            dz = pos[3 * (size_t)j + 2] - zi;
            r2 = dx * dx + dy * dy + dz * dz + soft2;
            inv = 1.0f / sqrtf(r2);
            s = mass[j] * (inv * inv * inv);
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        acc[3 * (size_t)i] = G * ax;
        acc[3 * (size_t)i + 1] = G * ay;
        acc[3 * (size_t)i + 2] = G * az;
    }
}
