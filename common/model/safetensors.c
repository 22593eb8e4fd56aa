/* safetensors: 8-byte little-endian header length, a JSON header
 *   {"name": {"dtype": "BF16", "shape": [r, c], "data_offsets": [begin, end]}, ...}
 * then the data area; offsets are relative to its start. Every field is checked against the
 * file before a byte of data is touched. */
#include "model/safetensors.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *dtype_name(Dtype d) { return d == DT_F16 ? "F16" : d == DT_BF16 ? "BF16" : "F32"; }

/* A JSON number that is a whole number in [0, 2^53]; -1 otherwise. */
static long long whole(const cJSON *v) {
    if (!cJSON_IsNumber(v)) return -1;
    double d = v->valuedouble;
    return d >= 0 && d <= 9007199254740992.0 && d == floor(d) ? (long long)d : -1;
}

static void add_tensor(SafeTensors *st, int *cap, const cJSON *e, const char *path,
                       const unsigned char *data, size_t data_len) {
    const char *name = e->string;
    if (strlen(name) >= sizeof st->t[0].name)
        die("%s: tensor name '%.60s...' is longer than %zu characters", path, name, sizeof st->t[0].name - 1);
    if (!cJSON_IsObject(e)) die("%s: tensor '%s': header entry is not a JSON object", path, name);

    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    Dtype dtype;
    if (!cJSON_IsString(dt)) die("%s: tensor '%s': field 'dtype' is missing or not a string", path, name);
    if (!strcmp(dt->valuestring, "F16")) dtype = DT_F16;
    else if (!strcmp(dt->valuestring, "BF16")) dtype = DT_BF16;
    else if (!strcmp(dt->valuestring, "F32")) dtype = DT_F32;
    else die("%s: tensor '%s' has dtype %s; this kit reads only F16, BF16 and F32", path, name, dt->valuestring);

    int ndim = cJSON_GetArraySize(sh);
    if (!cJSON_IsArray(sh) || ndim > 4)
        die("%s: tensor '%s': field 'shape' must be a list of at most 4 sizes", path, name);
    long long shape[4] = {0}, count = 1;
    for (int i = 0; i < ndim; i++) {
        shape[i] = whole(cJSON_GetArrayItem(sh, i));
        if (shape[i] < 0 || (shape[i] && count > (1ll << 50) / shape[i]))
            die("%s: tensor '%s': shape entry %d is not a valid size", path, name, i);
        count *= shape[i];
    }
    if (!cJSON_IsArray(of) || cJSON_GetArraySize(of) != 2)
        die("%s: tensor '%s': field 'data_offsets' must be [begin, end]", path, name);
    long long begin = whole(cJSON_GetArrayItem(of, 0)), end = whole(cJSON_GetArrayItem(of, 1));
    if (begin < 0 || end < begin || (unsigned long long)end > data_len)
        die("%s: tensor '%s': data_offsets [%lld, %lld] lie outside the data area of %zu bytes "
            "(truncated file? download it again)", path, name, begin, end, data_len);
    if (end - begin != count * dtype_size(dtype))
        die("%s: tensor '%s': data_offsets hold %lld bytes but shape x %s needs %lld",
            path, name, end - begin, dtype_name(dtype), count * dtype_size(dtype));

    if (st->n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        st->t = realloc(st->t, *cap * sizeof *st->t);
        if (!st->t) die("out of host memory reading %s", path);
    }
    StTensor *t = &st->t[st->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->dtype = dtype;
    t->ndim = ndim;
    memcpy(t->shape, shape, sizeof shape);
    t->nbytes = (size_t)(end - begin);
    t->data = data + begin;
    t->file = path;
}

/* By start, then end, then name: a tensor of no bytes at another's start sorts first and
 * overlaps nothing, whatever the header's order. */
static int by_data(const void *a, const void *b) {
    const StTensor *x = *(StTensor *const *)a, *y = *(StTensor *const *)b;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    if (x->nbytes != y->nbytes) return x->nbytes < y->nbytes ? -1 : 1;
    return strcmp(x->name, y->name);
}
static int by_name(const void *a, const void *b) {
    return strcmp(((const StTensor *)a)->name, ((const StTensor *)b)->name);
}

/* Sorts every tensor by name, once per file read: st_find searches, and a name seen twice (in
 * one file or two) is an error. */
static void sort_names(SafeTensors *st) {
    if (st->n > 1) qsort(st->t, st->n, sizeof *st->t, by_name);   /* (st->t is NULL when there are none) */
    for (int i = 1; i < st->n; i++) {
        const StTensor *a = &st->t[i - 1], *b = &st->t[i];
        if (strcmp(a->name, b->name)) continue;
        if (a->file == b->file) die("%s: tensor '%s' appears twice", a->file, a->name);
        die("%s and %s: tensor '%s' is in both; each tensor belongs to one shard", a->file, b->file, a->name);
    }
}

/* Maps one file and appends its tensors to st. */
static void open_file(SafeTensors *st, int *cap, const char *path) {
    if (st->nfiles == 16) die("%s: more than 16 shards; this kit reads at most 16", path);
    int k = st->nfiles;
    snprintf(st->paths[k], sizeof st->paths[k], "%s", path);
    path = st->paths[k];
    int fd = open(path, O_RDONLY | O_NONBLOCK);   /* a FIFO must not wait for a writer */
    if (fd < 0) die("%s: cannot open the weights file; run make model (or tools/get_model.sh DIR)", path);
    struct stat s;
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) {
        close(fd);
        die("%s: not a regular file; the weights must be a file", path);
    }
    size_t size = (size_t)s.st_size;
    if (size < 8) {
        close(fd);
        die("%s: only %zu bytes, too short for a safetensors file (truncated download?)", path, size);
    }
    unsigned char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) die("%s: cannot map the file into memory", path);
    st->maps[k] = map;
    st->sizes[k] = size;
    st->nfiles++;

    unsigned long long hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | map[i];
    if (hlen > size - 8)
        die("%s: header length %llu runs past the end of the file (%zu bytes); the file is truncated "
            "or not safetensors, download it again", path, hlen, size);
    cJSON *h = cJSON_ParseWithLength((const char *)map + 8, (size_t)hlen);
    if (!h || !cJSON_IsObject(h)) die("%s: the header is not a valid JSON object", path);
    const unsigned char *data = map + 8 + hlen;
    size_t data_len = size - 8 - hlen;
    int first = st->n;
    for (const cJSON *e = h->child; e; e = e->next)
        if (strcmp(e->string, "__metadata__")) add_tensor(st, cap, e, path, data, data_len);
    cJSON_Delete(h);

    /* No two tensors of this file may share bytes. */
    int n = st->n - first;
    StTensor **order = xmalloc((size_t)(n ? n : 1) * sizeof *order);
    for (int i = 0; i < n; i++) order[i] = &st->t[first + i];
    qsort(order, n, sizeof *order, by_data);
    for (int i = 1; i < n; i++)
        if ((const char *)order[i]->data < (const char *)order[i - 1]->data + order[i - 1]->nbytes)
            die("%s: tensors '%s' and '%s' overlap in the data area", path, order[i - 1]->name, order[i]->name);
    free(order);
    sort_names(st);
}

/* model.safetensors.index.json: {"weight_map": {"tensor name": "shard file name", ...}} */
static void open_index(SafeTensors *st, int *cap, const char *dir, const char *index) {
    size_t len;
    char *text = read_file(index, &len);
    if (!text) die("%s: cannot read the shard index", index);
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (!j) die("%s: not valid JSON; download it again", index);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(j, "weight_map");
    if (!cJSON_IsObject(map)) die("%s: field 'weight_map' is missing or not an object", index);
    for (const cJSON *e = map->child; e; e = e->next) {
        if (!cJSON_IsString(e) || strchr(e->valuestring, '/'))
            die("%s: weight_map entry for tensor '%s' must be a shard file name in this folder", index, e->string);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->valuestring);
        int seen = 0;
        for (int k = 0; k < st->nfiles; k++) seen |= !strcmp(st->paths[k], path);
        if (!seen) open_file(st, cap, path);
        const StTensor *t = st_find(st, e->string);
        if (!t || strcmp(t->file, path))
            die("%s: tensor '%s' is listed in %s but not found there", index, e->string, e->valuestring);
    }
    cJSON_Delete(j);
    free(text);
}

void st_open(SafeTensors *st, const char *model_dir) {
    memset(st, 0, sizeof *st);
    int cap = 0;
    char single[512], index[512];
    snprintf(single, sizeof single, "%s/model.safetensors", model_dir);
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", model_dir);
    if (path_exists(single)) open_file(st, &cap, single);
    else if (path_exists(index)) open_index(st, &cap, model_dir, index);
    else die("%s: no model.safetensors (nor model.safetensors.index.json); run make model "
             "(or tools/get_model.sh %s)", model_dir, model_dir);
    for (int i = 0; i < st->n; i++) st->total_bytes += st->t[i].nbytes;
}

const StTensor *st_find(const SafeTensors *st, const char *name) {
    StTensor key;
    if (strlen(name) >= sizeof key.name) return NULL;   /* longer than any name add_tensor keeps */
    snprintf(key.name, sizeof key.name, "%s", name);
    return st->n ? bsearch(&key, st->t, st->n, sizeof *st->t, by_name) : NULL;
}

void st_close(SafeTensors *st) {
    for (int k = 0; k < st->nfiles; k++) munmap(st->maps[k], st->sizes[k]);
    free(st->t);
    memset(st, 0, sizeof *st);
}
