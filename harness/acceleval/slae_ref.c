/* strategylens's driver of an AccelEval task's C reference through its task_io_cpu.c adapter.
 *
 *   slae_ref <data_dir> <out_dir> [--trials N] [--poison LIST|all|none] [--classify]
 *
 * Loads data_dir/input.bin (either magic), calls task_setup with allocation tracking on, then
 * task_run N times (every call timed; calls after the first start from poisoned output buffers),
 * writes out_dir/output.txt through task_write_output (the first call's answer), raw_<i>.bin
 * (the bytes of buffer i after the first call), poisoned_view.txt (the text written after
 * filling the poisoned buffers with 0x7F bytes: values that do not change there are not held
 * in them)
 * and record.json. Buffers are the allocations task_setup left behind, other than the context it
 * returns, that were all zero after it (outputs not yet written); LIST names the ones to poison
 * by index. --classify first fills each buffer alone (with 0x7F, then 0xA5 bytes) before a call
 * and keeps it in "safe" when the text answer stays the same both times (a zero buffer that is
 * really an input is not safe; it gets its first bytes back).
 * Exit codes: 0 done, 2 bad usage, 3 task_setup failed, 4 calls disagree. */
#define _POSIX_C_SOURCE 200809L
#include "acceleval_io.h"

#include <stdio.h>
#include <time.h>

void *task_setup(const TaskData *data, const char *data_dir);
void task_run(void *ctx);
void task_write_output(void *ctx, const char *output_path);
void task_cleanup(void *ctx);
void sl_ae_track(int on);
int sl_ae_count(void);
int sl_ae_get(int i, void **ptr, size_t *bytes);

#define POISON 0xA5
#define VIEW_FILL 0x7F
#define MAXBUF 256

static void *buf_ptr[MAXBUF];
static size_t buf_bytes[MAXBUF];
static int buf_zero[MAXBUF], buf_poison[MAXBUF], buf_safe[MAXBUF];
static int nbuf;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

static int same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static void poison(int only) {
    for (int i = 0; i < nbuf; i++)
        if (only >= 0 ? i == only : buf_poison[i]) memset(buf_ptr[i], POISON, buf_bytes[i]);
}

/* The view's fill prints as huge numbers in every type (0xA5 bytes print as -0.000000 in %f). */
static void fill_for_view(void) {
    for (int i = 0; i < nbuf; i++)
        if (buf_poison[i]) memset(buf_ptr[i], VIEW_FILL, buf_bytes[i]);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s <data_dir> <out_dir> [--trials N] [--poison LIST|all|none] "
                "[--classify]\n", argv[0]);
        return 2;
    }
    const char *data_dir = argv[1], *out_dir = argv[2];
    int trials = 3, classify = 0;
    const char *poison_arg = "all";
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--poison") && i + 1 < argc) poison_arg = argv[++i];
        else if (!strcmp(argv[i], "--classify")) classify = 1;
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
    }
    if (trials < 1) trials = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/input.bin", data_dir);
    TaskData data = load_input_bin(path);
    void **snap = (void **)calloc((size_t)data.num_inputs + 1, sizeof(void *));
    size_t *snap_n = (size_t *)calloc((size_t)data.num_inputs + 1, sizeof(size_t));
    for (int i = 0; i < data.num_inputs; i++) {
        snap_n[i] = (size_t)data.inputs[i].count * slae_dtype_size(data.inputs[i].dtype);
        snap[i] = malloc(snap_n[i] ? snap_n[i] : 1);
        memcpy(snap[i], data.inputs[i].data, snap_n[i]);
    }
    double t0 = now_ms();
    sl_ae_track(1);
    void *ctx = task_setup(&data, data_dir);
    sl_ae_track(0);
    double setup_ms = now_ms() - t0;
    if (!ctx) {
        fprintf(stderr, "task_setup returned NULL\n");
        return 3;
    }
    int ntracked = sl_ae_count(), nother = 0;
    size_t other_bytes = 0;
    for (int i = 0; i < ntracked; i++) {
        void *p;
        size_t n;
        sl_ae_get(i, &p, &n);
        if (p == ctx) continue;
        if (nbuf < MAXBUF && all_zero((const unsigned char *)p, n)) {
            buf_ptr[nbuf] = p;
            buf_bytes[nbuf] = n;
            buf_zero[nbuf] = 1;
            buf_safe[nbuf] = 1;
            nbuf++;
        } else {
            nother++;
            other_bytes += n;
        }
    }
    for (int i = 0; i < nbuf; i++) {
        if (!strcmp(poison_arg, "all")) buf_poison[i] = 1;
        else if (!strcmp(poison_arg, "none")) buf_poison[i] = 0;
        else {
            char key[16];
            snprintf(key, sizeof key, "%d", i);
            const char *s = poison_arg;
            while (*s) {
                size_t len = strcspn(s, ",");
                if (len == strlen(key) && !strncmp(s, key, len)) buf_poison[i] = 1;
                s += len + (s[len] == ',');
            }
        }
    }
    double *times = (double *)calloc((size_t)trials, sizeof(double));
    char out_txt[4096], tmp_txt[4096];
    snprintf(out_txt, sizeof out_txt, "%s/output.txt", out_dir);
    snprintf(tmp_txt, sizeof tmp_txt, "%s/trial.txt", out_dir);

    t0 = now_ms();
    task_run(ctx);
    times[0] = now_ms() - t0;
    task_write_output(ctx, out_txt);
    unsigned char **first = (unsigned char **)calloc((size_t)nbuf + 1, sizeof(void *));
    for (int i = 0; i < nbuf; i++) {
        first[i] = (unsigned char *)malloc(buf_bytes[i] ? buf_bytes[i] : 1);
        memcpy(first[i], buf_ptr[i], buf_bytes[i]);
        snprintf(path, sizeof path, "%s/raw_%d.bin", out_dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(first[i], 1, buf_bytes[i], f) != buf_bytes[i]) {
            fprintf(stderr, "cannot write %s\n", path);
            return 2;
        }
        fclose(f);
    }
    int *mutated = (int *)calloc((size_t)data.num_inputs + 1, sizeof(int));
    for (int i = 0; i < data.num_inputs; i++)
        mutated[i] = memcmp(snap[i], data.inputs[i].data, snap_n[i]) != 0;

    if (classify) {  /* both fills: 0xA5 reads as a tiny float, 0x7F as a huge one */
        const int fills[2] = {VIEW_FILL, POISON};
        for (int c = 0; c < nbuf; c++) {
            buf_safe[c] = 1;
            for (int f = 0; f < 2 && buf_safe[c]; f++) {
                for (int i = 0; i < data.num_inputs; i++)
                    if (mutated[i]) memcpy(data.inputs[i].data, snap[i], snap_n[i]);
                memset(buf_ptr[c], fills[f], buf_bytes[c]);
                task_run(ctx);
                task_write_output(ctx, tmp_txt);
                buf_safe[c] = same_file(out_txt, tmp_txt);
            }
            if (!buf_safe[c]) memcpy(buf_ptr[c], first[c], buf_bytes[c]);
            buf_poison[c] = buf_safe[c];
        }
    }

    int differ = 0;
    char detail[512] = "";
    for (int t = 1; t < trials; t++) {
        for (int i = 0; i < data.num_inputs; i++)
            if (mutated[i]) memcpy(data.inputs[i].data, snap[i], snap_n[i]);
        poison(-1);
        t0 = now_ms();
        task_run(ctx);
        times[t] = now_ms() - t0;
        for (int i = 0; i < nbuf && !differ; i++) {
            if (memcmp(first[i], buf_ptr[i], buf_bytes[i]) != 0) {
                differ = 1;
                snprintf(detail, sizeof detail, "call %d: buffer %d differs from the first call's",
                         t + 1, i);
            }
        }
        if (!nbuf && !differ) {
            task_write_output(ctx, tmp_txt);
            if (!same_file(out_txt, tmp_txt)) {
                differ = 1;
                snprintf(detail, sizeof detail, "call %d: text output differs from the first "
                         "call's", t + 1);
            }
        }
    }
    remove(tmp_txt);
    fill_for_view();
    snprintf(path, sizeof path, "%s/poisoned_view.txt", out_dir);
    task_write_output(ctx, path);

    snprintf(path, sizeof path, "%s/record.json", out_dir);
    FILE *r = fopen(path, "w");
    if (!r) return 2;
    fprintf(r, "{\"setup_ms\": %.6f, \"trials_ms\": [", setup_ms);
    for (int t = 0; t < trials; t++) fprintf(r, "%s%.6f", t ? ", " : "", times[t]);
    fprintf(r, "], \"buffers\": [");
    for (int i = 0; i < nbuf; i++)
        fprintf(r, "%s{\"index\": %d, \"bytes\": %zu, \"poisoned\": %s, \"safe\": %s}", i ? ", " : "",
                i, buf_bytes[i], buf_poison[i] ? "true" : "false", buf_safe[i] ? "true" : "false");
    fprintf(r, "], \"other_allocations\": %d, \"other_bytes\": %zu, \"classified\": %s, "
            "\"mutated\": [", nother, other_bytes, classify ? "true" : "false");
    int first_m = 1;
    for (int i = 0; i < data.num_inputs; i++) {
        if (!mutated[i]) continue;
        fprintf(r, "%s\"%s\"", first_m ? "" : ", ", data.inputs[i].name);
        first_m = 0;
    }
    fprintf(r, "], \"calls_agree\": %s, \"detail\": \"%s\"}\n", differ ? "false" : "true", detail);
    fclose(r);
    task_cleanup(ctx);
    return differ ? 4 : 0;
}
