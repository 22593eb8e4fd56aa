/* seeds SHARED OUT: the fuzz targets' seed corpora and data, made from the course's fixtures
 * and the kit's own files at run time (nothing here is a committed copy of a fixture):
 *   OUT/model/      a 1-layer, 32-token cut of the tiny fixture (config.json, model.safetensors
 *                   in BF16, data.bin: its tensors in F32 back to back, two BF16 shards)
 *   OUT/config/     the fixtures' two config.json forms and the cut's
 *   OUT/safetensors/ the cut's header in BF16, F16 and F32 (the target appends data.bin)
 *   OUT/st_index/   model.safetensors.index.json of the two shards
 *   OUT/tokenizer/  the fixture tokenizer cut to its first 64 merges, merges as "a b" and as pairs
 *   OUT/tokenize/   the texts of tests/data/tokenizer_cases.json
 *   OUT/rows/, OUT/claims/, OUT/day12/   the kit's rows files, claims and a gaps sample
 *   OUT/torch_trace/  the fixture torch.profiler trace cut to its first step's events (its
 *                     ProfilerStep annotations, kernels, launch calls and ops), two ways
 * A new target adds its seeds here. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "model/model.h"
#include "model/safetensors.h"
#include "util.h"

static const char *out;

static const char *at(const char *fmt, const char *name) {
    static char buf[4][1024];
    static int i;
    char *b = buf[i++ & 3], rel[512];
    snprintf(rel, sizeof rel, fmt, name);
    snprintf(b, sizeof buf[0], "%s/%s", out, rel);
    return b;
}
static void folder(const char *name) {
    const char *p = at("%s", name);
    if (mkdir(p, 0755) && errno != EEXIST) die("cannot create %s", p);
}
static void put(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) die("cannot write %s", path);
}
static void put_json(const char *path, const cJSON *j) {
    char *s = cJSON_PrintUnformatted(j);
    put(path, s, strlen(s));
    free(s);
}
static char *slurp(const char *path, size_t *n) {
    char *s = read_file(path, n);
    if (!s) die("cannot read %s (run from the repository root, with SHARED set)", path);
    return s;
}
static cJSON *slurp_json(const char *path) {
    size_t n;
    char *text = slurp(path, &n);
    cJSON *j = cJSON_ParseWithLength(text, n);
    if (!j) die("%s is not JSON", path);
    free(text);
    return j;
}
/* Writes a and "\n%%\n" and b (either a file's contents) to path: a two-part input. */
static void put_two(const char *path, const char *a, const char *b) {
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb), *both = xmalloc(na + nb + 5);
    memcpy(both, x, na);
    memcpy(both + na, "\n%%\n", 4);
    memcpy(both + na + 4, y, nb);
    put(path, both, na + nb + 4);
    free(x), free(y), free(both);
}

/* ---- the model cut: the fixture's tensors, each its top-left block at the small shape ---- */
typedef struct { ModelTensor m; float *v; long long n; } Cut;

static Dtype dtype_of(const char *s) { return !strcmp(s, "F16") ? DT_F16 : !strcmp(s, "BF16") ? DT_BF16 : DT_F32; }
static void encode(unsigned char *dst, const float *v, long long n, Dtype d) {
    for (long long i = 0; i < n; i++) {
        uint32_t u;
        uint16_t h;
        memcpy(&u, &v[i], 4);
        if (d == DT_F32) { memcpy(dst + 4 * i, &v[i], 4); continue; }
        h = d == DT_BF16 ? (uint16_t)(u >> 16) : float_to_half(v[i]);   /* the values came from bf16: exact */
        memcpy(dst + 2 * i, &h, 2);
    }
}
/* The header (padded with spaces to 8 bytes) and the data of tensors [from, to) in dtype. */
static char *st_header(const Cut *c, int from, int to, const char *dtype, size_t *data_bytes) {
    cJSON *h = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(h, "__metadata__");
    cJSON_AddStringToObject(meta, "format", "pt");
    size_t off = 0;
    for (int i = from; i < to; i++) {
        cJSON *t = cJSON_AddObjectToObject(h, c[i].m.name);
        cJSON_AddStringToObject(t, "dtype", dtype);
        double shape[2] = {(double)c[i].m.rows, (double)c[i].m.cols};
        cJSON_AddItemToObject(t, "shape", cJSON_CreateDoubleArray(shape, c[i].m.cols ? 2 : 1));
        size_t bytes = (size_t)c[i].n * dtype_size(dtype_of(dtype));
        double offs[2] = {(double)off, (double)(off + bytes)};
        cJSON_AddItemToObject(t, "data_offsets", cJSON_CreateDoubleArray(offs, 2));
        off += bytes;
    }
    char *s = cJSON_PrintUnformatted(h), *padded = xmalloc(strlen(s) + 8);
    size_t n = strlen(s);
    memcpy(padded, s, n);
    while (n % 8) padded[n++] = ' ';
    padded[n] = 0;
    free(s);
    cJSON_Delete(h);
    *data_bytes = off;
    return padded;
}
static unsigned char *st_data(const Cut *c, int from, int to, Dtype d, size_t bytes) {
    unsigned char *data = xmalloc(bytes), *p = data;
    for (int i = from; i < to; i++) {
        encode(p, c[i].v, c[i].n, d);
        p += c[i].n * dtype_size(d);
    }
    return data;
}
static void st_file(const char *path, const Cut *c, int from, int to) {
    size_t bytes;
    char *h = st_header(c, from, to, "BF16", &bytes);
    unsigned char *data = st_data(c, from, to, DT_BF16, bytes);
    size_t len = strlen(h);
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)((uint64_t)len >> (8 * i));
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(le, 1, 8, f) != 8 || fwrite(h, 1, len, f) != len || fwrite(data, 1, bytes, f) != bytes || fclose(f))
        die("cannot write %s", path);
    free(h), free(data);
}

static void model_seeds(const char *shared) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/tiny-llama/config.json", shared);
    cJSON *cfg = slurp_json(path);
    cJSON_ReplaceItemInObject(cfg, "vocab_size", cJSON_CreateNumber(32));
    cJSON_ReplaceItemInObject(cfg, "intermediate_size", cJSON_CreateNumber(16));
    cJSON_ReplaceItemInObject(cfg, "num_hidden_layers", cJSON_CreateNumber(1));
    cJSON_ReplaceItemInObject(cfg, "max_position_embeddings", cJSON_CreateNumber(16));
    folder("model"), folder("model/shards"), folder("config"), folder("safetensors"), folder("st_index");
    put_json(at("model/%s", "config.json"), cfg);
    put_json(at("config/%s", "small.json"), cfg);
    cJSON_Delete(cfg);

    Config small, big;
    config_load(&small, at("model/%s", "config.json"));
    config_load(&big, path);
    SafeTensors st;
    snprintf(path, sizeof path, "%s/fixtures/tiny-llama", shared);
    st_open(&st, path);
    int nt = model_tensors(&small, NULL);
    Cut *c = xcalloc(nt, sizeof *c);
    ModelTensor *m = xmalloc(nt * sizeof *m);
    model_tensors(&small, m);
    for (int i = 0; i < nt; i++) {
        const StTensor *t = st_find(&st, m[i].name);
        if (!t || t->dtype != DT_BF16) die("%s: no BF16 tensor '%s'", st.paths[0], m[i].name);
        long long cols = m[i].cols ? m[i].cols : 1, big_cols = t->ndim == 2 ? t->shape[1] : 1;
        c[i].m = m[i];
        c[i].n = m[i].rows * cols;
        c[i].v = xmalloc(c[i].n * sizeof(float));
        for (long long r = 0; r < m[i].rows; r++)
            for (long long k = 0; k < cols; k++) {
                uint16_t b;
                memcpy(&b, (const char *)t->data + 2 * (r * big_cols + k), 2);
                c[i].v[r * cols + k] = bf16_to_float(b);
            }
    }
    st_close(&st);

    st_file(at("model/%s", "model.safetensors"), c, 0, nt);
    const char *dtypes[] = {"BF16", "F16", "F32"};
    for (int d = 0; d < 3; d++) {
        size_t bytes;
        char *h = st_header(c, 0, nt, dtypes[d], &bytes), name[32];
        snprintf(name, sizeof name, "%s.json", dtypes[d]);
        put(at("safetensors/%s", name), h, strlen(h));
        if (d == 2) {   /* the F32 data is the longest: every header's offsets lie inside it */
            unsigned char *data = st_data(c, 0, nt, DT_F32, bytes);
            put(at("model/%s", "data.bin"), data, bytes);
            free(data);
        }
        free(h);
    }
    int split = 1 + 9 * small.n_layers;   /* embed and the layers | final norm, lm_head */
    st_file(at("model/shards/%s", "model-00001-of-00002.safetensors"), c, 0, split);
    st_file(at("model/shards/%s", "model-00002-of-00002.safetensors"), c, split, nt);
    cJSON *index = cJSON_CreateObject(), *map = cJSON_AddObjectToObject(index, "weight_map");
    for (int i = 0; i < nt; i++)
        cJSON_AddStringToObject(map, c[i].m.name, i < split ? "model-00001-of-00002.safetensors"
                                                           : "model-00002-of-00002.safetensors");
    put_json(at("st_index/%s", "index.json"), index);
    cJSON_Delete(index);
    for (int i = 0; i < nt; i++) free(c[i].v);
    free(c), free(m);

    const char *configs[][2] = {{"tiny-llama", "tiny.json"}, {"tinyllama-config", "tinyllama.json"}};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/fixtures/%s/config.json", shared, configs[i][0]);
        size_t n;
        char *text = slurp(path, &n);
        put(at("config/%s", configs[i][1]), text, n);
        free(text);
    }
}

/* ---- the tokenizer cut: special and byte tokens, and the first merges with their pieces ---- */
static void keep(cJSON *vocab, cJSON *kept, const char *piece) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(vocab, piece);
    if (id && !cJSON_GetObjectItemCaseSensitive(kept, piece)) cJSON_AddNumberToObject(kept, piece, id->valuedouble);
}
static void tokenizer_seeds(const char *shared) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/llama-tokenizer/tokenizer.json", shared);
    cJSON *root = slurp_json(path);
    cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab"), *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!vocab || !cJSON_IsArray(merges)) die("%s: no model.vocab or model.merges", path);
    cJSON *kept = cJSON_CreateObject(), *strings = cJSON_CreateArray(), *pairs = cJSON_CreateArray();
    for (const cJSON *e = vocab->child; e; e = e->next)
        if (e->valuedouble < 259) keep(vocab, kept, e->string);            /* <unk> <s> </s>, <0x00>..<0xFF> */
    int r = 0;
    for (const cJSON *m = merges->child; m && r < 64; m = m->next, r++) {
        char a[256], b[256], ab[512];
        if (!cJSON_IsString(m) || sscanf(m->valuestring, "%255[^ ] %255s", a, b) != 2) die("%s: merge %d", path, r);
        snprintf(ab, sizeof ab, "%s%s", a, b);
        keep(vocab, kept, a), keep(vocab, kept, b), keep(vocab, kept, ab);
        cJSON_AddItemToArray(strings, cJSON_CreateString(m->valuestring));
        const char *pair[2] = {a, b};
        cJSON_AddItemToArray(pairs, cJSON_CreateStringArray(pair, 2));
    }
    cJSON_ReplaceItemInObject(model, "vocab", kept);
    folder("tokenizer");
    cJSON_ReplaceItemInObject(model, "merges", strings);
    put_json(at("tokenizer/%s", "strings.json"), root);
    cJSON_ReplaceItemInObject(model, "merges", pairs);
    put_json(at("tokenizer/%s", "pairs.json"), root);
    cJSON_Delete(root);

    root = slurp_json("tests/data/tokenizer_cases.json");
    folder("tokenize");
    int i = 0;
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    for (const cJSON *c = cases ? cases->child : NULL; c; c = c->next, i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text");
        char name[32];
        snprintf(name, sizeof name, "case_%02d.txt", i);
        if (cJSON_IsString(t)) put(at("tokenize/%s", name), t->valuestring, strlen(t->valuestring));
    }
    cJSON_Delete(root);
}

static void rows_seeds(void) {
    folder("rows"), folder("claims"), folder("day12");
    const char *rows[][2] = {{"tests/data/rows_full.tsv", "full"}, {"answers/reference/rows.tsv", "reference"}};
    char name[64];
    for (int i = 0; i < 2; i++) {
        size_t n;
        char *text = slurp(rows[i][0], &n);
        snprintf(name, sizeof name, "%s.tsv", rows[i][1]);
        put(at("rows/%s", name), text, n);
        free(text);
        snprintf(name, sizeof name, "%s.txt", rows[i][1]);
        put_two(at("claims/%s", name), rows[i][0], "answers/claims.tsv");
    }
    const char *gaps = "1.5\n2.5\n30\n0.8\n12\n";
    put(at("model/%s", "gaps.tsv"), gaps, strlen(gaps));
    put_two(at("day12/%s", "full.txt"), "tests/data/rows_full.tsv", at("model/%s", "gaps.tsv"));
    put_two(at("day12/%s", "reference.txt"), "answers/reference/rows.tsv", at("model/%s", "gaps.tsv"));
}

/* The fixture trace (5.8 MB) is too large to mutate quickly: its first events, the start of
 * its first profiled step, kept as a trace of their own, the metadata first. */
static void trace_seeds(const char *shared) {
    folder("torch_trace");
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/torch-trace/trace_hf_eager_b1.json", shared);
    cJSON *root = slurp_json(path), *ev = cJSON_GetObjectItem(root, "traceEvents");
    if (!cJSON_IsArray(ev)) die("%s has no traceEvents array", path);
    const int keep[] = {400, 1500};
    for (int k = 0; k < 2; k++) {
        cJSON *cut = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(cut, "traceEvents");
        int i = 0;
        for (cJSON *e = ev->child; e && i < keep[k]; e = e->next, i++) cJSON_AddItemToArray(arr, cJSON_Duplicate(e, 1));
        char name[32];
        snprintf(name, sizeof name, "first_%d.json", keep[k]);
        put_json(at("torch_trace/%s", name), cut);
        cJSON_Delete(cut);
    }
    cJSON_Delete(root);
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: seeds SHARED OUT (from the repository root)");
    out = argv[2];
    if (mkdir(out, 0755) && errno != EEXIST) die("cannot create %s", out);
    model_seeds(argv[1]);
    tokenizer_seeds(argv[1]);
    rows_seeds();
    trace_seeds(argv[1]);
    printf("seeds: written to %s\n", out);
    return 0;
}
