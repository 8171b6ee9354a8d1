/* File-access and CUDA-error shim (libslshim.so), LD_PRELOADed into the harness child.
 *
 * Once armed (sl_shim_arm, called just before the solution is loaded), every open/openat/fopen
 * path and every getenv name is written as one line "open\t<path>" / "env\t<name>" to the file
 * descriptor named by SL_SHIM_FD, a pipe whose other end the parent reads. The parent decides
 * which lines are the CUDA stack and which are the solution. Raw system calls bypass this shim;
 * Landlock (libslchild.so) is the enforcing layer where the kernel has it.
 *
 * Solutions are linked against the shared CUDA runtime, so the shim also stands in front of the
 * runtime's kernel launches and error queries: a launch that fails and an error a solution
 * reads from cudaGetLastError / cudaPeekAtLastError are written as "cuda\t<what>" lines (the
 * first CUDA_LINES_MAX of them), which the parent keeps in the failure's detail. The calls go on
 * to the runtime unchanged. Time spent page-locking host memory (cudaHostRegister and
 * cudaHostUnregister) is summed for sl_shim_pin_ns: the cross-call probe leaves it out, as
 * locking pages the process never locked before costs more than locking them again. Device
 * allocations made while armed are counted until freed (sl_shim_live_bytes).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CUDA_LINES_MAX 16

static int log_fd = -1;
static volatile int armed = 0;
static __thread int inside = 0;

__attribute__((constructor)) static void shim_init(void) {
    const char *fd = getenv("SL_SHIM_FD");
    if (fd) log_fd = atoi(fd);
}

void sl_shim_arm(int on) { armed = on; }

static void record(const char *kind, const char *what) {
    if (!armed || log_fd < 0 || inside || !what) return;
    inside = 1;
    char line[1200];
    int n = snprintf(line, sizeof line, "%s\t%.1000s\n", kind, what);
    if (n > 0) {
        ssize_t w = write(log_fd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
        (void)w;
    }
    inside = 0;
}

#define REAL(name, ret, ...) \
    static ret (*real_##name)(__VA_ARGS__) = NULL; \
    if (!real_##name) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap);
    REAL(open, int, const char *, int, ...);
    record("open", path);
    return real_open(path, flags, m);
}

int open64(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap);
    REAL(open64, int, const char *, int, ...);
    record("open", path);
    return real_open64(path, flags, m);
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap);
    REAL(openat, int, int, const char *, int, ...);
    record("open", path);
    return real_openat(dirfd, path, flags, m);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap);
    REAL(openat64, int, int, const char *, int, ...);
    record("open", path);
    return real_openat64(dirfd, path, flags, m);
}

FILE *fopen(const char *path, const char *mode) {
    REAL(fopen, FILE *, const char *, const char *);
    record("open", path);
    return real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode) {
    REAL(fopen64, FILE *, const char *, const char *);
    record("open", path);
    return real_fopen64(path, mode);
}

char *getenv(const char *name) {
    REAL(getenv, char *, const char *);
    record("env", name);
    return real_getenv(name);
}

char *secure_getenv(const char *name) {
    REAL(secure_getenv, char *, const char *);
    record("env", name);
    return real_secure_getenv(name);
}

/* ---- CUDA runtime: launches and error reads (types as the runtime's ABI has them). ---- */
typedef int cuda_error_t;
typedef struct { unsigned int x, y, z; } sl_dim3;
typedef struct { sl_dim3 grid, block; size_t smem; void *stream; } sl_launch_config; /* prefix */

static int cuda_lines = 0;

/* The runtime's own definition of `name`: the next one after this shim, or, when the runtime was
 * loaded privately (dlopen without RTLD_GLOBAL), the first loaded object other than this one
 * that defines it. */
struct find_ctx { const char *name; void *self_base; void *found; };

static int find_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct find_ctx *c = (struct find_ctx *)data;
    if (c->found || (void *)info->dlpi_addr == c->self_base || !info->dlpi_name || !info->dlpi_name[0])
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
    if (!h) return 0;
    void *f = dlsym(h, c->name);
    Dl_info di;
    if (f && dladdr(f, &di) && di.dli_fbase != c->self_base) c->found = f;
    dlclose(h);
    return c->found != NULL;
}

static void *runtime_symbol(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (f) return f;
    Dl_info self;
    if (!dladdr((void *)runtime_symbol, &self)) return NULL;
    struct find_ctx c = {name, self.dli_fbase, NULL};
    dl_iterate_phdr(find_cb, &c);
    return c.found;
}

#define RUNTIME(name, ret, ...) \
    static ret (*real_##name)(__VA_ARGS__) = NULL; \
    if (!real_##name) real_##name = (ret(*)(__VA_ARGS__))runtime_symbol(#name)

static const char *error_text(cuda_error_t e, char *buf, size_t n) {
    RUNTIME(cudaGetErrorName, const char *, cuda_error_t);
    RUNTIME(cudaGetErrorString, const char *, cuda_error_t);
    snprintf(buf, n, "%s: %s", real_cudaGetErrorName ? real_cudaGetErrorName(e) : "error",
             real_cudaGetErrorString ? real_cudaGetErrorString(e) : "");
    return buf;
}

static void launch_failed(const char *api, const void *func, sl_dim3 g, sl_dim3 b, size_t smem,
                          cuda_error_t e) {
    if (e == 0 || !armed || cuda_lines >= CUDA_LINES_MAX) return;
    cuda_lines++;
    Dl_info info;
    char where[48] = "?";
    const char *kernel = where;
    /* the name only when it is the function's own (dladdr names the nearest symbol before);
     * CUDA 13's launch stubs are hidden, so dladdr has no name: the offset in the library,
     * which the parent names from the library's symbol table (@0x...) */
    if (func && dladdr(func, &info)) {
        if (info.dli_sname && info.dli_saddr == func)
            kernel = info.dli_sname;
        else if (info.dli_fbase)
            snprintf(where, sizeof where, "@0x%lx",
                     (unsigned long)((const char *)func - (const char *)info.dli_fbase));
    }
    char err[300], line[900];
    snprintf(line, sizeof line, "%s %.300s <<<(%u,%u,%u), (%u,%u,%u), %zu B shared>>> failed: %s",
             api, kernel, g.x, g.y, g.z, b.x, b.y, b.z, smem, error_text(e, err, sizeof err));
    record("cuda", line);
}

static void error_read(const char *api, cuda_error_t e) {
    if (e == 0 || !armed || cuda_lines >= CUDA_LINES_MAX) return;
    cuda_lines++;
    char err[300], line[400];
    snprintf(line, sizeof line, "%s returned %s", api, error_text(e, err, sizeof err));
    record("cuda", line);
}

#define LAUNCH(name)                                                                           \
    cuda_error_t name(const void *func, sl_dim3 g, sl_dim3 b, void **args, size_t smem,       \
                      void *stream) {                                                          \
        RUNTIME(name, cuda_error_t, const void *, sl_dim3, sl_dim3, void **, size_t, void *);  \
        if (!real_##name) return 3; /* cudaErrorInitializationError: no runtime loaded */     \
        cuda_error_t e = real_##name(func, g, b, args, smem, stream);                          \
        launch_failed(#name, func, g, b, smem, e);                                             \
        return e;                                                                              \
    }
LAUNCH(cudaLaunchKernel)
LAUNCH(cudaLaunchKernel_ptsz)
LAUNCH(cudaLaunchCooperativeKernel)
LAUNCH(cudaLaunchCooperativeKernel_ptsz)

/* Since CUDA 13 a <<<...>>> launch goes through __cudaLaunchKernel with a kernel handle that
 * the launch stub got once from __cudaGetKernel; the handles are remembered with their stubs,
 * whose names dladdr knows. */
#define KERNELS_MAX 512
static struct { void *handle; const void *stub; } kernels[KERNELS_MAX];
static int n_kernels = 0;

cuda_error_t __cudaGetKernel(void **handle, const void *stub) {
    RUNTIME(__cudaGetKernel, cuda_error_t, void **, const void *);
    if (!real___cudaGetKernel) return 3;
    cuda_error_t e = real___cudaGetKernel(handle, stub);
    if (e == 0 && handle && n_kernels < KERNELS_MAX) {
        kernels[n_kernels].handle = *handle;
        kernels[n_kernels].stub = stub;
        n_kernels++;  /* a race here loses a name, not a launch */
    }
    return e;
}

static const void *stub_of(void *handle) {
    for (int i = 0; i < n_kernels; i++)
        if (kernels[i].handle == handle) return kernels[i].stub;
    return NULL;
}

#define LAUNCH_HANDLE(name)                                                                    \
    cuda_error_t name(void *kernel, sl_dim3 g, sl_dim3 b, void **args, size_t smem,           \
                      void *stream) {                                                          \
        RUNTIME(name, cuda_error_t, void *, sl_dim3, sl_dim3, void **, size_t, void *);        \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name(kernel, g, b, args, smem, stream);                        \
        if (e) launch_failed(#name, stub_of(kernel), g, b, smem, e);                           \
        return e;                                                                              \
    }
LAUNCH_HANDLE(__cudaLaunchKernel)
LAUNCH_HANDLE(__cudaLaunchKernel_ptsz)

#define LAUNCH_EX(name)                                                                        \
    cuda_error_t name(const sl_launch_config *cfg, const void *func, void **args) {            \
        RUNTIME(name, cuda_error_t, const sl_launch_config *, const void *, void **);          \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name(cfg, func, args);                                         \
        if (e && cfg) launch_failed(#name, func, cfg->grid, cfg->block, cfg->smem, e);         \
        return e;                                                                              \
    }
LAUNCH_EX(cudaLaunchKernelExC)
LAUNCH_EX(cudaLaunchKernelExC_ptsz)

#define ERROR_READ(name)                                                                       \
    cuda_error_t name(void) {                                                                  \
        RUNTIME(name, cuda_error_t, void);                                                     \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name();                                                        \
        error_read(#name, e);                                                                  \
        return e;                                                                              \
    }
ERROR_READ(cudaGetLastError)
ERROR_READ(cudaPeekAtLastError)

/* ---- page-locking of the caller's memory, timed ---- */
static long long pin_ns = 0;

long long sl_shim_pin_ns(void) { return __atomic_load_n(&pin_ns, __ATOMIC_RELAXED); }

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

cuda_error_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    RUNTIME(cudaHostRegister, cuda_error_t, void *, size_t, unsigned int);
    if (!real_cudaHostRegister) return 3;
    long long t0 = now_ns();
    cuda_error_t e = real_cudaHostRegister(ptr, size, flags);
    __atomic_add_fetch(&pin_ns, now_ns() - t0, __ATOMIC_RELAXED);
    return e;
}

cuda_error_t cudaHostUnregister(void *ptr) {
    RUNTIME(cudaHostUnregister, cuda_error_t, void *);
    if (!real_cudaHostUnregister) return 3;
    long long t0 = now_ns();
    cuda_error_t e = real_cudaHostUnregister(ptr);
    __atomic_add_fetch(&pin_ns, now_ns() - t0, __ATOMIC_RELAXED);
    return e;
}

/* ---- device memory the solution allocated and still holds ----
 * Allocations made while armed (the load and the calls) are remembered with their sizes until
 * freed, so the audit can tell the solution's own buffers kept between calls from memory the
 * driver keeps for itself (a graph's executable, local memory for stack frames). Runtime API
 * only; more than LIVE_MAX live allocations stop the count (sl_shim_live_bytes returns -1). */
#define LIVE_MAX 8192
static struct { void *ptr; size_t size; } live[LIVE_MAX];
static int n_live = 0, live_overflow = 0;
static long long live_bytes = 0;
static volatile char live_lock = 0;

static void lock_live(void) { while (__atomic_test_and_set(&live_lock, __ATOMIC_ACQUIRE)) ; }
static void unlock_live(void) { __atomic_clear(&live_lock, __ATOMIC_RELEASE); }

static void live_add(cuda_error_t e, void *ptr, size_t size) {
    if (e || !armed || !ptr) return;
    lock_live();
    if (n_live == LIVE_MAX) {
        live_overflow = 1;
    } else {
        live[n_live].ptr = ptr;
        live[n_live].size = size;
        n_live++;
        live_bytes += (long long)size;
    }
    unlock_live();
}

static void live_remove(void *ptr) {
    if (!ptr) return;
    lock_live();
    for (int i = n_live - 1; i >= 0; i--)
        if (live[i].ptr == ptr) {
            live_bytes -= (long long)live[i].size;
            live[i] = live[--n_live];
            break;
        }
    unlock_live();
}

long long sl_shim_live_bytes(void) {
    lock_live();
    long long b = live_overflow ? -1 : live_bytes;
    unlock_live();
    return b;
}

cuda_error_t cudaMalloc(void **p, size_t size) {
    RUNTIME(cudaMalloc, cuda_error_t, void **, size_t);
    if (!real_cudaMalloc) return 3;
    cuda_error_t e = real_cudaMalloc(p, size);
    live_add(e, p ? *p : NULL, size);
    return e;
}

cuda_error_t cudaMallocManaged(void **p, size_t size, unsigned int flags) {
    RUNTIME(cudaMallocManaged, cuda_error_t, void **, size_t, unsigned int);
    if (!real_cudaMallocManaged) return 3;
    cuda_error_t e = real_cudaMallocManaged(p, size, flags);
    live_add(e, p ? *p : NULL, size);
    return e;
}

cuda_error_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
    RUNTIME(cudaMallocPitch, cuda_error_t, void **, size_t *, size_t, size_t);
    if (!real_cudaMallocPitch) return 3;
    cuda_error_t e = real_cudaMallocPitch(p, pitch, width, height);
    live_add(e, p ? *p : NULL, pitch ? *pitch * height : width * height);
    return e;
}

typedef struct { void *ptr; size_t pitch, xsize, ysize; } sl_pitched_ptr;
typedef struct { size_t width, height, depth; } sl_extent;

cuda_error_t cudaMalloc3D(sl_pitched_ptr *pp, sl_extent ext) {
    RUNTIME(cudaMalloc3D, cuda_error_t, sl_pitched_ptr *, sl_extent);
    if (!real_cudaMalloc3D) return 3;
    cuda_error_t e = real_cudaMalloc3D(pp, ext);
    if (pp) live_add(e, pp->ptr, pp->pitch * ext.height * ext.depth);
    return e;
}

#define MALLOC_ASYNC(name)                                                                     \
    cuda_error_t name(void **p, size_t size, void *stream) {                                   \
        RUNTIME(name, cuda_error_t, void **, size_t, void *);                                  \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name(p, size, stream);                                         \
        live_add(e, p ? *p : NULL, size);                                                      \
        return e;                                                                              \
    }
MALLOC_ASYNC(cudaMallocAsync)
MALLOC_ASYNC(cudaMallocAsync_ptsz)

#define MALLOC_POOL(name)                                                                      \
    cuda_error_t name(void **p, size_t size, void *pool, void *stream) {                       \
        RUNTIME(name, cuda_error_t, void **, size_t, void *, void *);                          \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name(p, size, pool, stream);                                   \
        live_add(e, p ? *p : NULL, size);                                                      \
        return e;                                                                              \
    }
MALLOC_POOL(cudaMallocFromPoolAsync)
MALLOC_POOL(cudaMallocFromPoolAsync_ptsz)

cuda_error_t cudaFree(void *ptr) {
    RUNTIME(cudaFree, cuda_error_t, void *);
    if (!real_cudaFree) return 3;
    cuda_error_t e = real_cudaFree(ptr);
    if (!e) live_remove(ptr);
    return e;
}

#define FREE_ASYNC(name)                                                                       \
    cuda_error_t name(void *ptr, void *stream) {                                               \
        RUNTIME(name, cuda_error_t, void *, void *);                                           \
        if (!real_##name) return 3;                                                            \
        cuda_error_t e = real_##name(ptr, stream);                                             \
        if (!e) live_remove(ptr);                                                              \
        return e;                                                                              \
    }
FREE_ASYNC(cudaFreeAsync)
FREE_ASYNC(cudaFreeAsync_ptsz)
