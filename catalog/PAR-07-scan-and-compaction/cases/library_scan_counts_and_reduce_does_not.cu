// Case: library scan counts and reduce does not.
#include <thrust/scan.h>
#include <thrust/reduce.h>
#include <thrust/execution_policy.h>
extern "C" void solution_compute(int* d, int* o, int n) {
    int s = thrust::reduce(thrust::device, d, d + n);
    thrust::exclusive_scan(thrust::device, d, d + n, o);  // expect: PAR-07
}
