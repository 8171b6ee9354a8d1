// Case: narrowing casts of elements only (variant 3).
// ok: MEM-10
extern "C" void solution_compute(const double* d, double* dd, int n) {
    float hf[4];
    hf[0] = (float)n;
}
