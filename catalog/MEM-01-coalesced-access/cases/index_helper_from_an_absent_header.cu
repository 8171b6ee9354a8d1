// Case: a 3-D stencil whose cell index comes from idx(ix, iy, iz), a macro of a header the file
// does not bring, called with the thread's x, y and z coordinates in that order: read as the
// usual linearisation with x fastest. The x neighbours go through a clamp helper from the same
// header, and the z coordinate is mirrored in place (iz = nz - iz), which keeps it uniform
// across the threads of a row. The same helper called with y before x is not read so.
#include "grid_index.h"  // not present

__global__ void smooth(const float* __restrict__ u, const float* __restrict__ w,
                       float* __restrict__ out, int nx, int ny, int nz) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    int iz = blockIdx.z * blockDim.z + threadIdx.z;
    if (ix >= nx || iy >= ny || iz >= nz) return;
    int c = idx(ix, iy, iz);
    float u0 = u[c];  // expect: MEM-01
    float left = u[idx(clamp_x(ix - 1), iy, iz)];  // expect: MEM-01
    float right = u[idx(clamp_x(ix + 1), iy, iz)];  // expect: MEM-01
    if (iz > nz / 2) iz = nz - iz;
    float weight = w[idx(ix, iy, iz)];  // expect: MEM-01
    float across = w[idx(iy, ix, iz)];  // ok: MEM-01
    out[c] = u0 + weight * (left + right - 2.0f * u0) + across;  // expect: MEM-01
}

extern "C" void solution_compute(const float* u, const float* w, float* out, int nx, int ny,
                                 int nz) {
    dim3 block(32, 8, 1);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
    smooth<<<grid, block>>>(u, w, out, nx, ny, nz);
}
