// Case: ThunderSVM's KERNEL_LOOP(i, n) and SAFE_KERNEL_LAUNCH(kernel, args...) from
// thundersvm/util/common.h, which the file includes but does not bring along. Without their
// definitions the loop was read as a call (no grid-stride loop, no access) and the kernel was
// never launched, so the entry reached no kernel.
#include "thundersvm/util/common.h"  // not present

__global__ void update_f(float *f, const float *alpha_diff, const float *k_rows, int ws, int n) {
  KERNEL_LOOP(idx, n) {  // expect: PAR-01
    float sum = 0;
    for (int i = 0; i < ws; ++i) sum += alpha_diff[i] * k_rows[i * n + idx];  // expect: MEM-01
    f[idx] -= sum;  // expect: MEM-01
  }
}

extern "C" void solution_compute(float *f, const float *alpha_diff, const float *k_rows, int ws,
                                 int n) {
  SAFE_KERNEL_LAUNCH(update_f, f, alpha_diff, k_rows, ws, n);
}
