// Case: flattened index modulo is stride one.
__global__ void blur(const float* img, float* out, int h, int w) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= h * w) return;
    int r = idx / w, c = idx % w;
    float s = 0.0f;
    for (int dr = -1; dr <= 1; ++dr) {
        int rr = min(max(r + dr, 0), h - 1);
        s += img[rr * w + c];  // expect: MEM-01
    }
    out[idx] = s;  // expect: MEM-01
}
extern "C" void solution_compute(float* a, float* b, int n) {
    blur<<<1, 32>>>(a, b, n, n);
}
