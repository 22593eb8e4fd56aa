/* The fp32 CPU reference against Hugging Face transformers on the tiny 2-layer Llama
 * fixture (bfloat16 on disk): the logits at every prompt position, 16 greedy tokens through
 * the KV cache, the same checkpoint rewritten as F32 and F16, and the synthetic weights. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "model/model.h"
#include "util.h"

static const char *fixture(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/tiny-llama/%s", shared_dir(), file);
    return path;
}

static float max_abs_diff(const float *a, const float *b, int n) {
    float m = 0;
    for (int i = 0; i < n; i++) m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

/* Writes dir/model.safetensors holding st's tensors converted to dtype, and dir/config.json. */
static void rewrite(const SafeTensors *st, Dtype dtype, const char *dir) {
    char path[1024];
    cJSON *h = cJSON_CreateObject();
    size_t off = 0;
    for (int i = 0; i < st->n; i++) {
        const StTensor *t = &st->t[i];
        size_t n = t->nbytes / dtype_size(t->dtype), bytes = n * dtype_size(dtype);
        cJSON *e = cJSON_AddObjectToObject(h, t->name);
        cJSON_AddStringToObject(e, "dtype", dtype_name(dtype));
        cJSON *shape = cJSON_AddArrayToObject(e, "shape");
        for (int d = 0; d < t->ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t->shape[d]));
        cJSON *offs = cJSON_AddArrayToObject(e, "data_offsets");
        cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)off));
        cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)(off + bytes)));
        off += bytes;
    }
    char *json = cJSON_PrintUnformatted(h);
    uint64_t hlen = (strlen(json) + 7) / 8 * 8;                 /* padded with spaces */
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    fwrite(&hlen, 8, 1, f);                                     /* little-endian host */
    fprintf(f, "%-*s", (int)hlen, json);
    for (int i = 0; i < st->n; i++) {
        const StTensor *t = &st->t[i];
        size_t n = t->nbytes / dtype_size(t->dtype);
        for (size_t k = 0; k < n; k++) {
            uint16_t b;
            memcpy(&b, (const char *)t->data + 2 * k, 2);       /* the fixture is BF16 */
            float v = bf16_to_float(b);
            uint16_t hv = float_to_half(v);
            if (dtype == DT_F32) fwrite(&v, 4, 1, f);
            else fwrite(&hv, 2, 1, f);
        }
    }
    fclose(f);
    free(json);
    cJSON_Delete(h);
    size_t len;
    char *cfg = read_file(fixture("config.json"), &len);
    snprintf(path, sizeof path, "%s/config.json", dir);
    f = fopen(path, "wb");
    fwrite(cfg, 1, len, f);
    fclose(f);
    free(cfg);
}

/* All-position logits of the prompt from the checkpoint in dir. */
static float *prompt_logits(const Config *c, const char *dir, const int *ids, int n) {
    SafeTensors st;
    st_open(&st, dir);
    CpuModel *m = cpu_model_open(c, &st, 0, 0);
    float *logits = xmalloc(sizeof(float) * n * c->vocab);
    cpu_forward(m, ids, n, 0, logits, 1);
    cpu_model_free(m);
    st_close(&st);
    return logits;
}

int main(void) {
    need_fixtures("test_model_cpu");
    double t0 = now_ms();
    Config c;
    config_load(&c, fixture("config.json"));
    size_t len;
    char *text = read_file(fixture("expected.json"), &len);
    cJSON *exp = cJSON_Parse(text);
    const cJSON *pj = cJSON_GetObjectItem(exp, "prompt_ids"), *gj = cJSON_GetObjectItem(exp, "greedy_fp32");
    int n = cJSON_GetArraySize(pj), n_new = cJSON_GetArraySize(gj), ids[64], want[64];
    for (int i = 0; i < n; i++) ids[i] = cJSON_GetArrayItem(pj, i)->valueint;
    for (int i = 0; i < n_new; i++) want[i] = cJSON_GetArrayItem(gj, i)->valueint;
    CHECK(n == 13 && n_new == 16, "expected.json: %d prompt ids, %d greedy tokens", n, n_new);

    /* 1. logits at every prompt position, within 1e-3 of transformers' float32 ones */
    size_t ref_len;
    float *ref = (float *)read_file(fixture("logits.f32"), &ref_len);
    CHECK(ref && ref_len == sizeof(float) * n * c.vocab, "logits.f32 has %zu bytes", ref_len);
    float *logits = prompt_logits(&c, fixture(""), ids, n);
    for (int t = 0; t < n; t++) {
        float d = max_abs_diff(logits + (size_t)t * c.vocab, ref + (size_t)t * c.vocab, c.vocab);
        CHECK(d <= 1e-3f, "position %d: max |logit - transformers| = %g > 1e-3", t, d);
    }

    /* 2. greedy: prefill, then one token at a time through the KV cache */
    SafeTensors st;
    st_open(&st, fixture(""));
    CpuModel *m = cpu_model_open(&c, &st, 0, 0);
    float *last = xmalloc(sizeof(float) * c.vocab);
    int got[64];
    cpu_forward(m, ids, n, 0, last, 0);
    got[0] = argmax_f32(last, c.vocab);
    for (int i = 1; i < n_new; i++) {
        cpu_forward(m, &got[i - 1], 1, n + i - 1, last, 0);
        got[i] = argmax_f32(last, c.vocab);
    }
    for (int i = 0; i < n_new; i++) CHECK(got[i] == want[i], "greedy token %d: %d, transformers %d", i, got[i], want[i]);
    cpu_model_free(m);

    /* 3. the same weights stored as F32 (exact) and F16 (bf16 values fit fp16's range here) */
    char dir[] = "/tmp/kit_model_cpu_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    rewrite(&st, DT_F32, dir);
    float *l32 = prompt_logits(&c, dir, ids, n);
    CHECK(memcmp(l32, logits, sizeof(float) * n * c.vocab) == 0, "F32 checkpoint: logits differ from BF16");
    rewrite(&st, DT_F16, dir);
    float *l16 = prompt_logits(&c, dir, ids, n);
    float d16 = max_abs_diff(l16, ref, n * c.vocab);
    CHECK(d16 <= 1e-3f, "F16 checkpoint: max |logit - transformers| = %g", d16);
    char path[1100];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/config.json", dir);
    unlink(path);
    rmdir(dir);
    st_close(&st);

    /* 4. synthetic weights: the same seed gives the same logits, another seed others */
    float *s[3];
    uint64_t seeds[3] = {1, 1, 2};
    for (int k = 0; k < 3; k++) {
        CpuModel *sm = cpu_model_open(&c, NULL, seeds[k], 0);
        s[k] = xmalloc(sizeof(float) * c.vocab);
        cpu_forward(sm, ids, n, 0, s[k], 0);
        cpu_model_free(sm);
    }
    CHECK(memcmp(s[0], s[1], sizeof(float) * c.vocab) == 0, "seed 1 twice: logits differ");
    CHECK(max_abs_diff(s[0], s[2], c.vocab) > 1e-4f, "seeds 1 and 2 give the same logits");
    CHECK(isfinite(s[0][argmax_f32(s[0], c.vocab)]), "synthetic logits are finite");

    /* 5. the int8 reference (cpu_model_quantize_int8) on the fixture: what int8 weights change.
     * Its logits move by about 0.007 (of logits up to 0.9) and its 16 greedy tokens stay
     * transformers' fp32 ones; a GPU int8 model is held to this reference (tests/gpu/int8.sh). */
    st_open(&st, fixture(""));
    m = cpu_model_open(&c, &st, 0, 0);
    cpu_model_quantize_int8(m);
    float *l8 = xmalloc(sizeof(float) * n * c.vocab);
    cpu_forward(m, ids, n, 0, l8, 1);
    const float d8 = max_abs_diff(l8, logits, n * c.vocab);
    CHECK(d8 > 0 && d8 < 2e-2f, "int8 reference: max |logit - fp32| = %g, expected above 0 and below 2e-2", d8);
    got[0] = argmax_f32(l8 + (size_t)(n - 1) * c.vocab, c.vocab);
    for (int i = 1; i < n_new; i++) {
        cpu_forward(m, &got[i - 1], 1, n + i - 1, last, 0);
        got[i] = argmax_f32(last, c.vocab);
    }
    int same = 0;
    for (int i = 0; i < n_new; i++) same += got[i] == want[i];
    CHECK(same == n_new, "int8 reference: %d of %d greedy tokens are transformers' fp32 ones", same, n_new);
    printf("int8 reference: max |logit - fp32| = %.5f, %d of %d greedy tokens the same\n", d8, same, n_new);
    cpu_model_free(m);
    st_close(&st);
    free(l8);

    for (int k = 0; k < 3; k++) free(s[k]);
    free(l16); free(l32); free(last); free(logits); free(ref); free(text);
    cJSON_Delete(exp);
    printf("test_model_cpu: %.0f ms\n", now_ms() - t0);
    return check_done("test_model_cpu");
}
