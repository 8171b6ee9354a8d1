// Case: each thread reads its particle's x, y and z from one array of 12-byte records
// (pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]) and writes them back the same way. Unlike an
// 8- or 16-byte record (a float2 or float4 split into scalars), a 12-byte record is read as
// strided.
// ok: MEM-01
__global__ void drift(float* __restrict__ pos, const float* __restrict__ vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
    float vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2];
    pos[3 * i] = x + dt * vx;
    pos[3 * i + 1] = y + dt * vy;
    pos[3 * i + 2] = z + dt * vz;
}

extern "C" void solution_compute(float* pos, const float* vel, float dt, int n) {
    drift<<<(n + 255) / 256, 256>>>(pos, vel, dt, n);
}
