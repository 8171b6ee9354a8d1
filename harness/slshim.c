/* File-access shim (libslshim.so), LD_PRELOADed into the harness child.
 *
 * Once armed (sl_shim_arm, called just before the solution is loaded), every open/openat/fopen
 * path and every getenv name is written as one line "open\t<path>" / "env\t<name>" to the file
 * descriptor named by SL_SHIM_FD, a pipe whose other end the parent reads. The parent decides
 * which lines are the CUDA stack and which are the solution. Raw system calls bypass this shim;
 * Landlock (libslchild.so) is the enforcing layer where the kernel has it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
