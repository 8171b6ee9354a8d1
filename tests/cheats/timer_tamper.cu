// expect-flags: timer-tamper
// Computes honestly, but a load-time constructor overwrites the first code bytes of libc's
// clock_gettime and of every loaded cudaEventElapsedTime so that in-process timers read a tenth
// of the real time.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct timespec base[16];
static int have_base[16];

static int slow_clock(clockid_t clk, struct timespec* ts)
{
    struct timespec now;
    long r = syscall(SYS_clock_gettime, clk, &now);
    if (r != 0 || clk < 0 || clk >= 16) { if (r == 0) *ts = now; return (int)r; }
    if (!have_base[clk]) { base[clk] = now; have_base[clk] = 1; }
    int64_t b = (int64_t)base[clk].tv_sec * 1000000000LL + base[clk].tv_nsec;
    int64_t n = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
    int64_t t = b + (n - b) / 10;
    ts->tv_sec = t / 1000000000LL;
    ts->tv_nsec = t % 1000000000LL;
    return 0;
}

typedef CUresult (*drv_elapsed_t)(float*, CUevent, CUevent);
static drv_elapsed_t drv_elapsed = nullptr;

static cudaError_t slow_elapsed(float* ms, cudaEvent_t a, cudaEvent_t b)
{
    CUresult r = drv_elapsed(ms, (CUevent)a, (CUevent)b);
    if (r != CUDA_SUCCESS) return cudaErrorInvalidResourceHandle;
    *ms /= 10.0f;
    return cudaSuccess;
}

static void patch(void* target, void* replacement)
{
    uintptr_t page = (uintptr_t)target & ~(uintptr_t)4095;
    if (mprotect((void*)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
    unsigned char code[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};  // movabs rax; jmp rax
    memcpy(code + 2, &replacement, 8);
    memcpy(target, code, sizeof code);
    mprotect((void*)page, 8192, PROT_READ | PROT_EXEC);
}

static int patch_runtime(struct dl_phdr_info* info, size_t, void*)
{
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libcudart")) return 0;
    void* h = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
    if (!h) return 0;
    if (void* f = dlsym(h, "cudaEventElapsedTime")) patch(f, (void*)slow_elapsed);
    if (void* f = dlsym(h, "cudaEventElapsedTime_v2")) patch(f, (void*)slow_elapsed);
    dlclose(h);
    return 0;
}

__attribute__((constructor)) static void tamper()
{
    void* cuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (cuda) drv_elapsed = (drv_elapsed_t)dlsym(cuda, "cuEventElapsedTime");
    if (drv_elapsed) dl_iterate_phdr(patch_runtime, nullptr);
    void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
    if (libc) {
        if (void* f = dlsym(libc, "clock_gettime")) patch(f, (void*)slow_clock);
    }
}

__global__ void saxpy_kernel(int n, float a, const float* x, const float* y, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(int n, float a, const float* x, const float* y, float* out)
{
    float *dx, *dy, *dout;
    size_t bytes = (size_t)n * sizeof(float);
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dout);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
}
