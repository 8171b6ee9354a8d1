// Case: a checkerboard stored as two arrays, one per colour (each holds half of every row). The
// same kernel updates one colour array from the other and back, the colour passed as 0 or 1 and
// the row parity picking the neighbour, so each colour's sites are contiguous. Two buffers swapped
// between time steps with the same arguments hold whole grids: a ping-pong, not a re-layout.
__global__ void flip_colour(signed char *mine, const signed char *other, const float *r,
                            int colour, int nx, int half)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nx * half)
        return;
    int i = t / half, j = t % half;
    int up = (i + 1) % nx, down = (i + nx - 1) % nx;
    int side = ((i & 1) == colour) ? (j + 1) % half : (j + half - 1) % half;
    int sum = other[up * half + j] + other[down * half + j] + other[t] + other[i * half + side];
    if (r[t] * (sum + 5) < 1.0f)
        mine[t] = -mine[t];
}

__global__ void diffuse(float *next, const float *cur, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        next[i] = 0.5f * cur[i] + 0.25f * (cur[i - 1] + cur[i + 1]);
}

extern "C" void solution_compute(signed char *black, signed char *white, const float *r,
                                 float *u, float *v, int nx, int ny, int n)
{
    int half = ny / 2, blocks = (nx * half + 255) / 256;
    flip_colour<<<blocks, 256>>>(black, white, r, 0, nx, half);  // expect: MEM-07
    flip_colour<<<blocks, 256>>>(white, black, r, 1, nx, half);  // expect: MEM-07
    diffuse<<<(n + 255) / 256, 256>>>(v, u, n);  // ok: MEM-07
    diffuse<<<(n + 255) / 256, 256>>>(u, v, n);  // ok: MEM-07
}
