double norm(const float* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (double)x[i] * x[i];
    return s;
}
void solution_compute(const float* x, int n, double* out) { *out = norm(x, n); }
