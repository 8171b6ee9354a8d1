// Case: the math functions are named through macros chosen by a preprocessor switch. The live
// branch maps them to fast intrinsics, so the calls through the macros are fast math; the
// definitions in the dead branch must not hide that. The accurate sqrtf macro is no intrinsic.
#if 1
#define FAST_EXP __expf
#define FAST_LOG __logf
#define ROOT sqrtf
#else
#define FAST_EXP expf
#define FAST_LOG logf
#define ROOT sqrt
#endif

__global__ void log_returns(const float* price, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float r = FAST_LOG(price[i]);  // expect: CMP-05
        float d = ROOT(fabsf(r));  // ok: CMP-05
        out[i] = FAST_EXP(-d) * r;  // expect: CMP-05
    }
}
