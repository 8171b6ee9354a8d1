#include <cuda_runtime.h>
#include <math.h>

struct McParams {
    float s0, strike, rate, vol, t;
    int steps;
};

__constant__ McParams c_params;   // expect: MEM-05
__constant__ float c_drift[2];    // expect: MEM-05

// Monte Carlo payoff over pre-generated normal draws; all paths share the parameters.
__global__ void mc_payoff(const float* z, float* payoff, int paths) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= paths) return;
    float s = c_params.s0;
    float dt = c_params.t / c_params.steps;
    for (int k = 0; k < c_params.steps; ++k)
        s *= expf(c_drift[0] * dt + c_drift[1] * sqrtf(dt) * z[(size_t)k * paths + p]);
    payoff[p] = expf(-c_params.rate * c_params.t) * fmaxf(s - c_params.strike, 0.0f);
}

extern "C" void solution_compute(float s0, float strike, float rate, float vol, float t, int steps,
                                 const float* z, int paths, float* payoff) {
    McParams h = {s0, strike, rate, vol, t, steps};
    float drift[2] = {rate - 0.5f * vol * vol, vol};
    cudaMemcpyToSymbol(c_params, &h, sizeof(h));
    cudaMemcpyToSymbol(c_drift, drift, sizeof(drift));
    float *dz, *dp;
    cudaMalloc(&dz, sizeof(float) * steps * paths);
    cudaMalloc(&dp, sizeof(float) * paths);
    cudaMemcpy(dz, z, sizeof(float) * steps * paths, cudaMemcpyHostToDevice);
    mc_payoff<<<(paths + 255) / 256, 256>>>(dz, dp, paths);
    cudaMemcpy(payoff, dp, sizeof(float) * paths, cudaMemcpyDeviceToHost);
    cudaFree(dz); cudaFree(dp);
}
