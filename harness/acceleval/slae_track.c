/* Allocation tracking for AccelEval adapters (see acceleval_io.h): malloc, calloc, realloc and
 * free of an adapter go through here. While tracking is on (sl_ae_track(1), around task_setup)
 * every allocation is recorded; a free removes it. The harness then reads the live ones
 * (sl_ae_count, sl_ae_get) to find the buffers task_setup left behind: the outputs a call
 * writes, which it poisons before each call and copies out after it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SLAE_MAX 4096

static void *slae_ptr[SLAE_MAX];
static size_t slae_bytes[SLAE_MAX];
static int slae_n;
static int slae_on;

static void slae_forget(void *p) {
    for (int i = 0; p && i < slae_n; i++) {
        if (slae_ptr[i] == p) {
            memmove(slae_ptr + i, slae_ptr + i + 1, (size_t)(slae_n - i - 1) * sizeof(void *));
            memmove(slae_bytes + i, slae_bytes + i + 1, (size_t)(slae_n - i - 1) * sizeof(size_t));
            slae_n--;
            return;
        }
    }
}

static void *slae_keep(void *p, size_t n) {
    if (p && slae_on && slae_n < SLAE_MAX) {
        slae_ptr[slae_n] = p;
        slae_bytes[slae_n] = n;
        slae_n++;
    }
    return p;
}

void *sl_ae_malloc(size_t n) { return slae_keep(malloc(n), n); }

void *sl_ae_calloc(size_t n, size_t size) { return slae_keep(calloc(n, size), n * size); }

void *sl_ae_realloc(void *p, size_t n) {
    slae_forget(p);
    return slae_keep(realloc(p, n), n);
}

void sl_ae_free(void *p) {
    slae_forget(p);
    free(p);
}

/* Start (1) or stop (0) recording; starting forgets what was recorded before. */
void sl_ae_track(int on) {
    if (on) slae_n = 0;
    slae_on = on;
}

int sl_ae_count(void) { return slae_n; }

/* The i-th live recorded allocation, in allocation order; 0 when i is out of range. */
int sl_ae_get(int i, void **ptr, size_t *bytes) {
    if (i < 0 || i >= slae_n) return 0;
    *ptr = slae_ptr[i];
    *bytes = slae_bytes[i];
    return 1;
}
