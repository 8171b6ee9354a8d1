// N-body accelerations with Thrust: device_vectors for the data, a transform over body indices
// that produces each body's acceleration as a float3, and a Thrust copy back to the host.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <cstdio>
#include <exception>

struct body_accel {
    const float* pos;
    const float* mass;
    int n;
    float soft2;
    float G;

    __device__ float3 operator()(int i) const
    {
        const float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1];
        const float zi = pos[3 * (size_t)i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            const float dx = pos[3 * (size_t)j] - xi;
            const float dy = pos[3 * (size_t)j + 1] - yi;
            const float dz = pos[3 * (size_t)j + 2] - zi;
            const float r2 = dx * dx + dy * dy + dz * dz + soft2;
            const float inv = 1.0f / sqrtf(r2);
            const float s = mass[j] * (inv * inv * inv);
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        return make_float3(G * ax, G * ay, G * az);
    }
};

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    if (n <= 0) return;
    try {
        thrust::device_vector<float> d_pos(pos, pos + 3 * (size_t)n);
        thrust::device_vector<float> d_mass(mass, mass + n);
        thrust::device_vector<float3> d_acc(n);
        body_accel op{thrust::raw_pointer_cast(d_pos.data()),
                      thrust::raw_pointer_cast(d_mass.data()), n, soft2, G};
        thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
                          d_acc.begin(), op);
        // float3 is three packed floats, the same layout as acc
        thrust::copy(d_acc.begin(), d_acc.end(), reinterpret_cast<float3*>(acc));
    } catch (const std::exception& e) {
        fprintf(stderr, "nbody (thrust): %s\n", e.what());
    }
}
