// Case: narrowing casts of elements only (variant 4).
// ok: MEM-10
extern "C" void solution_compute(const double* d, double* dd, int n) {
    float hf[4];
    dd[0] = (double)hf[0];
}
