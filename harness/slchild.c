/* Native side of the harness child process (libslchild.so).
 *
 * Loaded by the Python child before the solution. It owns the device set-up, the L2 flush, the
 * in-process timers (host clock and CUDA events), device-memory readings, copy-bandwidth probes,
 * code-byte fingerprints of the timing functions and the Landlock sandbox. Everything here is
 * a second view: the parent process times every call from outside and decides what to trust.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *flush_buf = NULL;
static size_t flush_bytes = 0;
static int flush_round = 0;
static cudaEvent_t ev_start, ev_stop;
static struct timespec t_begin, t_return;

static double ns_between(const struct timespec *a, const struct timespec *b) {
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* Blocking sync, so that a waiting host thread burns no CPU time (the host-compute audit reads
 * the process's CPU time). Returns 0 or the CUDA error code. */
int sl_init(int device, size_t *l2_bytes) {
    cudaError_t e = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (e != cudaSuccess && e != cudaErrorSetOnActiveProcess) return (int)e;
    if ((e = cudaSetDevice(device)) != cudaSuccess) return (int)e;
    if ((e = cudaFree(0)) != cudaSuccess) return (int)e;
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    *l2_bytes = (size_t)l2;
    flush_bytes = (size_t)(l2 > 0 ? l2 : (64 << 20)) * 2; /* twice L2: every line is evicted */
    if ((e = cudaMalloc(&flush_buf, flush_bytes)) != cudaSuccess) return (int)e;
    if ((e = cudaEventCreate(&ev_start)) != cudaSuccess) return (int)e;
    if ((e = cudaEventCreate(&ev_stop)) != cudaSuccess) return (int)e;
    return (int)cudaDeviceSynchronize();
}

int sl_flush_l2(void) {
    cudaMemset(flush_buf, (flush_round++) & 0xff, flush_bytes);
    return (int)cudaDeviceSynchronize();
}

const char *sl_error_string(int code) { return cudaGetErrorString((cudaError_t)code); }

void sl_begin(void) {
    cudaEventRecord(ev_start, 0);
    clock_gettime(CLOCK_MONOTONIC, &t_begin);
}

void sl_returned(void) { clock_gettime(CLOCK_MONOTONIC, &t_return); }

/* After the solution returned: wait for the device and read the host clock; the stop event is
 * recorded but not waited for, so the reply to the parent leaves at once (sl_event_ms reads it).
 * out[0] = host ns begin->return, out[1] = host ns begin->device idle. */
int sl_end(double *out) {
    cudaError_t e = cudaDeviceSynchronize();
    struct timespec t_idle;
    clock_gettime(CLOCK_MONOTONIC, &t_idle);
    cudaEventRecord(ev_stop, 0);
    out[0] = ns_between(&t_begin, &t_return);
    out[1] = ns_between(&t_begin, &t_idle);
    return (int)e;
}

/* CUDA-event view of the last call (ms), or -1 when the events failed. */
double sl_event_ms(void) {
    float ms = -1.0f;
    if (cudaEventSynchronize(ev_stop) != cudaSuccess) return -1.0;
    if (cudaEventElapsedTime(&ms, ev_start, ev_stop) != cudaSuccess) return -1.0;
    return (double)ms;
}

int sl_mem_used(size_t *used, size_t *total) {
    size_t free_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, total);
    *used = *total - free_b;
    return (int)e;
}

/* Copy bandwidth in bytes per second; direction 0 = host to device, 1 = device to host. */
double sl_bandwidth(int pinned, int direction, size_t bytes, int reps) {
    void *host = NULL, *dev = NULL;
    if (pinned) {
        if (cudaMallocHost(&host, bytes) != cudaSuccess) return -1.0;
    } else {
        host = malloc(bytes);
        if (!host) return -1.0;
    }
    memset(host, 1, bytes);
    if (cudaMalloc(&dev, bytes) != cudaSuccess) return -1.0;
    double best = 1e30;
    for (int r = 0; r < reps + 1; r++) {
        struct timespec a, b;
        cudaDeviceSynchronize();
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (direction == 0) cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
        else cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
        cudaDeviceSynchronize();
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = ns_between(&a, &b);
        if (r > 0 && ns < best) best = ns; /* first copy is a warm-up */
    }
    cudaFree(dev);
    if (pinned) cudaFreeHost(host); else free(host);
    return (double)bytes / (best * 1e-9);
}

/* FNV-1a over the first 32 code bytes of every loaded copy of `sym` (one per loaded object that
 * defines it, found through dl_iterate_phdr). A solution that patches a timer changes it. */
struct fp_ctx { const char *sym; uint64_t hash; int copies; };

static void fnv(uint64_t *h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) { *h ^= p[i]; *h *= 1099511628211ULL; }
}

static int fp_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct fp_ctx *c = (struct fp_ctx *)data;
    const char *name = info->dlpi_name;
    void *h = (name && name[0]) ? dlopen(name, RTLD_NOLOAD | RTLD_LAZY) : dlopen(NULL, RTLD_LAZY);
    if (!h) return 0;
    void *addr = dlsym(h, c->sym);
    if (addr) {
        Dl_info di;
        /* count only the object that defines the symbol, not those that import it */
        if (dladdr(addr, &di) && di.dli_fbase == (void *)info->dlpi_addr) {
            fnv(&c->hash, (const unsigned char *)addr, 32);
            c->copies++;
        }
    }
    dlclose(h);
    return 0;
}

uint64_t sl_code_fingerprint(const char *sym, int *copies) {
    struct fp_ctx c = {sym, 1469598103934665603ULL, 0};
    dl_iterate_phdr(fp_cb, &c);
    *copies = c.copies;
    return c.hash;
}

/* ---- Landlock (Linux >= 5.13): restrict filesystem access to the listed read-only and
 * read-write trees. Returns the ABI version applied, or -errno when unsupported. ---- */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
struct ll_ruleset_attr { uint64_t handled_access_fs; uint64_t handled_access_net; uint64_t scoped; };
struct ll_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_ALL_V1 ((1ULL << 13) - 1)
#define LL_REFER (1ULL << 13)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)

int sl_landlock(const char **ro, int n_ro, const char **rw, int n_rw) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);
    if (abi < 0) return -errno;
    uint64_t handled = LL_ALL_V1;
    if (abi >= 2) handled |= LL_REFER;
    if (abi >= 3) handled |= LL_TRUNCATE;
    /* ioctl on devices stays unrestricted: the CUDA driver needs it on /dev/nvidia* */
    struct ll_ruleset_attr attr = {handled, 0, 0};
    size_t attr_size = abi >= 4 ? 16 : 8;
    if (abi >= 6) attr_size = sizeof(attr);
    int fd = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
    if (fd < 0) return -errno;
    uint64_t read_access = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR;
    for (int i = 0; i < n_ro + n_rw; i++) {
        const char *p = i < n_ro ? ro[i] : rw[i - n_ro];
        int pfd = open(p, O_PATH | O_CLOEXEC);
        if (pfd < 0) continue;
        struct ll_path_beneath pb = {i < n_ro ? read_access : handled, pfd};
        if (syscall(__NR_landlock_add_rule, fd, 1 /* PATH_BENEATH */, &pb, 0) != 0) {
            /* a file (not a directory) accepts only file rights */
            pb.allowed_access &= (LL_EXECUTE | LL_READ_FILE | LL_WRITE_FILE | (abi >= 3 ? LL_TRUNCATE : 0));
            syscall(__NR_landlock_add_rule, fd, 1, &pb, 0);
        }
        close(pfd);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { close(fd); return -errno; }
    if (syscall(__NR_landlock_restrict_self, fd, 0) != 0) { int e = errno; close(fd); return -e; }
    close(fd);
    return (int)abi;
}
