/* strategylens's reader of AccelEval's input.bin and the TaskData API that AccelEval's task_io
 * adapters call (get_param, get_tensor_int, get_tensor_float, get_tensor, load_requests,
 * free_task_data), written for strategylens from the file format. The harness compiles every
 * adapter against this header, never against the checkout's own.
 *
 * input.bin, little-endian: header {char magic[8]; int32 version, num_tensors, num_params,
 * data_offset; int64 reserved}, then num_tensors descriptors {char name[32]; int32 dtype (0 i32,
 * 1 f32, 2 f64), reserved; int64 count, offset, size_bytes}, then num_params entries {char
 * key[32]; int64 value}. Both magics in use are accepted: "ORBENCH\0" and "ACCELEVA".
 *
 * After the API, malloc/calloc/realloc/free in the including file go through sl_ae_* (see
 * slae_track.c): while tracking is on, the harness learns which buffers task_setup allocated,
 * so that it can poison and read them. Define SLAE_NO_TRACK to leave the allocator alone. */
#ifndef ACCELEVAL_IO_H
#define ACCELEVAL_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    int dtype;          /* 0 int32, 1 float32, 2 float64 */
    void *data;
    int64_t count;
} Tensor;

typedef struct {
    const char *key;
    int64_t value;
} TaskParam;

typedef struct {
    int num_inputs;
    Tensor *inputs;
    int num_params;
    TaskParam *params;
} TaskData;

static inline void slae_die(const char *what, const char *path) {
    fprintf(stderr, "[acceleval_io] %s: %s\n", path ? path : "", what);
    exit(1);
}

static inline int slae_dtype_size(int dtype) {
    return dtype == 0 || dtype == 1 ? 4 : dtype == 2 ? 8 : 0;
}

static inline char *slae_name(const char *raw) {
    size_t n = 0;
    while (n < 32 && raw[n]) n++;
    char *s = (char *)malloc(n + 1);
    if (!s) slae_die("out of memory", NULL);
    memcpy(s, raw, n);
    s[n] = '\0';
    return s;
}

static inline TaskData load_input_bin(const char *path) {
    TaskData d;
    memset(&d, 0, sizeof d);
    FILE *f = fopen(path, "rb");
    if (!f) slae_die("cannot open", path);
    char head[32];
    if (fread(head, 1, 32, f) != 32) slae_die("truncated header", path);
    if (memcmp(head, "ORBENCH\0", 8) != 0 && memcmp(head, "ACCELEVA", 8) != 0)
        slae_die("bad magic (want ORBENCH\\0 or ACCELEVA)", path);
    int32_t version, nt, np, data_offset;
    memcpy(&version, head + 8, 4);
    memcpy(&nt, head + 12, 4);
    memcpy(&np, head + 16, 4);
    memcpy(&data_offset, head + 20, 4);
    if (version != 1) slae_die("unsupported version", path);
    if (nt < 0 || np < 0) slae_die("negative counts", path);
    d.num_inputs = nt;
    d.num_params = np;
    d.inputs = (Tensor *)calloc(nt ? (size_t)nt : 1, sizeof(Tensor));
    d.params = (TaskParam *)calloc(np ? (size_t)np : 1, sizeof(TaskParam));
    if (!d.inputs || !d.params) slae_die("out of memory", NULL);
    int64_t *offsets = (int64_t *)calloc(nt ? (size_t)nt : 1, sizeof(int64_t));
    for (int i = 0; i < nt; i++) {
        char desc[64];
        if (fread(desc, 1, 64, f) != 64) slae_die("truncated tensor descriptors", path);
        int32_t dtype;
        int64_t count, offset, nbytes;
        memcpy(&dtype, desc + 32, 4);
        memcpy(&count, desc + 40, 8);
        memcpy(&offset, desc + 48, 8);
        memcpy(&nbytes, desc + 56, 8);
        if (!slae_dtype_size(dtype)) slae_die("unknown tensor dtype", path);
        if (count < 0 || nbytes != count * slae_dtype_size(dtype))
            slae_die("tensor size_bytes does not match its count", path);
        d.inputs[i].name = slae_name(desc);
        d.inputs[i].dtype = dtype;
        d.inputs[i].count = count;
        d.inputs[i].data = malloc(nbytes ? (size_t)nbytes : 1);
        if (!d.inputs[i].data) slae_die("out of memory", NULL);
        offsets[i] = offset;
    }
    for (int i = 0; i < np; i++) {
        char entry[40];
        if (fread(entry, 1, 40, f) != 40) slae_die("truncated params", path);
        d.params[i].key = slae_name(entry);
        memcpy(&d.params[i].value, entry + 32, 8);
    }
    for (int i = 0; i < nt; i++) {
        size_t nbytes = (size_t)d.inputs[i].count * slae_dtype_size(d.inputs[i].dtype);
        if (fseek(f, (long)offsets[i], SEEK_SET) != 0 ||
            fread(d.inputs[i].data, 1, nbytes, f) != nbytes)
            slae_die("truncated tensor data", path);
    }
    free(offsets);
    fclose(f);
    return d;
}

static inline void load_requests(const char *path, char **requests, int *count) {
    *count = 0;
    FILE *f = fopen(path, "r");
    if (!f) slae_die("cannot open", path);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (!n) continue;
        requests[*count] = (char *)malloc(n + 1);
        memcpy(requests[*count], line, n + 1);
        (*count)++;
    }
    fclose(f);
}

static inline void free_task_data(TaskData *d) {
    if (!d) return;
    for (int i = 0; i < d->num_inputs; i++) {
        free(d->inputs[i].data);
        free((void *)d->inputs[i].name);
    }
    for (int i = 0; i < d->num_params; i++) free((void *)d->params[i].key);
    free(d->inputs);
    free(d->params);
    memset(d, 0, sizeof *d);
}

static inline int64_t get_param(const TaskData *d, const char *key) {
    for (int i = 0; d && key && i < d->num_params; i++)
        if (strcmp(d->params[i].key, key) == 0) return d->params[i].value;
    return 0;
}

static inline void *get_tensor(const TaskData *d, const char *name) {
    for (int i = 0; d && name && i < d->num_inputs; i++)
        if (strcmp(d->inputs[i].name, name) == 0) return d->inputs[i].data;
    return NULL;
}

static inline void *slae_typed(const TaskData *d, const char *name, int dtype) {
    for (int i = 0; d && name && i < d->num_inputs; i++)
        if (strcmp(d->inputs[i].name, name) == 0)
            return d->inputs[i].dtype == dtype ? d->inputs[i].data : NULL;
    return NULL;
}

static inline int *get_tensor_int(const TaskData *d, const char *name) {
    return (int *)slae_typed(d, name, 0);
}

static inline float *get_tensor_float(const TaskData *d, const char *name) {
    return (float *)slae_typed(d, name, 1);
}

#ifndef SLAE_NO_TRACK
void *sl_ae_malloc(size_t n);
void *sl_ae_calloc(size_t n, size_t size);
void *sl_ae_realloc(void *p, size_t n);
void sl_ae_free(void *p);
#define malloc(n) sl_ae_malloc(n)
#define calloc(n, size) sl_ae_calloc((n), (size))
#define realloc(p, n) sl_ae_realloc((p), (n))
#define free(p) sl_ae_free(p)
#endif

#ifdef __cplusplus
}
#endif

#endif /* ACCELEVAL_IO_H */
