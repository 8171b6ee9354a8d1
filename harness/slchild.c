/* Native side of the harness child process (libslchild.so).
 *
 * Loaded by the Python child before the solution. It owns the device set-up, the L2 flush, the
 * in-process timers (host clock and CUDA events), the checks at the moment a call returns
 * (queued device work, output samples), device-memory readings, copy-bandwidth probes,
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

/* Threads the device can hold at once (SMs x resident threads per SM): the driver reserves a
   kernel's stack frame for each of them, and keeps the reservation after the kernel ends. */
int sl_resident_threads(int device) {
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    return sms * per_sm;
}

/* The per-thread stack the driver reserves before any kernel asks for more (1 KiB by default). */
long sl_stack_limit(void) {
    size_t v = 0;
    return cudaDeviceGetLimit(&v, cudaLimitStackSize) == cudaSuccess ? (long)v : -1;
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

/* ---- Output samples at return. Before a checked call the child plans, for every output, the
 * positions to look at (all of a small output; else the first, the last and random ones drawn
 * from a seed the solution cannot know). sl_returned copies those elements the moment the call
 * returns; sl_snapshot_changed counts the ones that differ once the device is idle: output
 * written after the return (the poison the harness wrote before the call still there, or any
 * other value). ---- */
#define SNAP_MAX 32
struct snap {
    const unsigned char *p;
    int whole;
    size_t elem, count, pos_cap, saved_cap;
    size_t *pos;
    unsigned char *saved;
};
static struct snap snaps[SNAP_MAX];
static int n_snaps = 0;

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static int by_position(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Plan one output of `nbytes` bytes in elements of `elem` bytes: all of it when it has at most
 * `samples` elements, else `samples` positions. Returns the positions planned, or -1. */
long sl_snapshot_plan(const void *p, size_t nbytes, size_t elem, size_t samples, uint64_t seed) {
    if (n_snaps >= SNAP_MAX || !p || elem == 0 || samples < 2) return -1;
    size_t n = nbytes / elem;
    if (n == 0) return 0;
    struct snap *s = &snaps[n_snaps];
    size_t count = n <= samples ? n : samples;
    if (count > s->pos_cap) {
        size_t *pos = realloc(s->pos, count * sizeof *pos);
        if (!pos) return -1;
        s->pos = pos;
        s->pos_cap = count;
    }
    if (count * elem > s->saved_cap) {
        unsigned char *saved = realloc(s->saved, count * elem);
        if (!saved) return -1;
        s->saved = saved;
        s->saved_cap = count * elem;
    }
    uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
    s->whole = count == n;
    for (size_t i = 0; i < count; i++)
        s->pos[i] = s->whole ? i : i == 0 ? 0 : i == 1 ? n - 1 : (size_t)(xorshift(&state) % n);
    if (!s->whole) qsort(s->pos, count, sizeof *s->pos, by_position);  /* in address order */
    s->p = (const unsigned char *)p;
    s->elem = elem;
    s->count = count;
    n_snaps++;
    return (long)count;
}

void sl_snapshot_take(void) {
    for (int k = 0; k < n_snaps; k++) {
        struct snap *s = &snaps[k];
        if (s->whole) {
            memcpy(s->saved, s->p, s->count * s->elem);
            continue;
        }
        for (size_t i = 0; i < s->count; i++)
            memcpy(s->saved + i * s->elem, s->p + s->pos[i] * s->elem, s->elem);
    }
}

/* Elements of the planned outputs that changed since the return; `checked` gets how many were
 * compared. Clears the plan. */
long sl_snapshot_changed(long *checked) {
    long changed = 0, total = 0;
    for (int k = 0; k < n_snaps; k++) {
        struct snap *s = &snaps[k];
        for (size_t i = 0; i < s->count; i++)
            changed += memcmp(s->saved + i * s->elem, s->p + s->pos[i] * s->elem, s->elem) != 0;
        total += (long)s->count;
    }
    n_snaps = 0;
    *checked = total;
    return changed;
}

/* The moment the solution returned: the host clock, the planned output samples, then whether
 * device work is still queued on the legacy default stream or on this thread's per-thread
 * default stream. Stream queries enqueue nothing, so an idle device answers idle (an event
 * recorded here would still be in flight). Work on streams the solution created is seen only
 * through the outputs and the time to idle. Returns 1 when work was still queued. A not-ready
 * answer is not left behind as the thread's last error for the solution's next check. */
int sl_returned(void) {
    clock_gettime(CLOCK_MONOTONIC, &t_return);
    if (n_snaps) sl_snapshot_take();
    cudaError_t before = cudaPeekAtLastError();
    cudaError_t legacy = cudaStreamQuery(cudaStreamLegacy);
    cudaError_t own = cudaStreamQuery(cudaStreamPerThread);
    if (before == cudaSuccess && cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
    return legacy == cudaErrorNotReady || own == cudaErrorNotReady;
}

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
