// Case: narrowing casts of elements only (variant 2).
extern "C" void solution_compute(const double* d, double* dd, int n) {
    float hf[4];
    hf[0] = static_cast<float>(d[0]);  // expect: MEM-10
}
