// Case: every hst detector is silent on a file without host code.
// ok: HST-01, HST-02, HST-03, HST-04, HST-05, HST-06, HST-07
__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }
