/* config: a Hugging Face Llama config.json (old and new hub forms) or TinyLlama built in. */
#include "model/config.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the kit runs. Every size has a bound, generous (Llama-3-70B's shapes are inside all of
 * them: vocab 128256, dim 8192, FFN 28672, 80 layers, 64 heads, 131072 positions), so that
 * nothing the kit computes from them can overflow: parameter, byte and cache sizes (64-bit),
 * tensor counts and per-row lengths (int). A larger value is refused here, naming the field. */
enum {
    MAX_VOCAB = 1 << 24,        /* the tokenizer's largest id (tokenizer.c) */
    MAX_DIM = 1 << 16,          /* hidden_size */
    MAX_FFN = 1 << 18,          /* intermediate_size */
    MAX_LAYERS = 1 << 10,
    MAX_HEADS = 1 << 10,        /* query heads; key/value heads divide them */
    MAX_HEAD_DIM = 1 << 10,
    MAX_POSITIONS = 1 << 20,    /* max_position_embeddings */
};
#define MAX_EPS 1.0             /* rms_norm_eps in (0, 1] */
#define MAX_THETA 1e12          /* rope_theta in (0, 1e12] */

/* An integer field in [lo, hi]; example is what TinyLlama has. */
static int get_int(const cJSON *j, const char *path, const char *field, int lo, int hi, int example) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, field);
    if (!v || cJSON_IsNull(v))
        die("%s: field '%s' is missing (an integer in %d..%d, e.g. %d)", path, field, lo, hi, example);
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(d >= lo && d <= hi && d == floor(d)))
        die("%s: field '%s' must be an integer in %d..%d, the sizes this kit runs (e.g. %d)", path, field, lo, hi,
            example);
    return (int)d;
}

/* A token id below vocab, or a list of them (the first counts); def when absent. */
static int get_token_id(const cJSON *j, const char *path, const char *field, int vocab, int def) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, field);
    if (!v || cJSON_IsNull(v)) return def;
    if (cJSON_IsArray(v)) v = cJSON_GetArrayItem(v, 0);
    double d = v && cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(d >= 0 && d < vocab && d == floor(d)))
        die("%s: field '%s' must be a token id, an integer in 0..%d (vocab_size %d; e.g. %d)", path, field, vocab - 1,
            vocab, def);
    return (int)d;
}

/* A number in (0, hi], read as a float: checked again after the narrowing, which can turn a
 * tiny double into 0. */
static float get_positive(const cJSON *v, const char *path, const char *field, double hi, const char *example) {
    if (!v || cJSON_IsNull(v))
        die("%s: field '%s' is missing (a positive number, e.g. %s)", path, field, example);
    float f = cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble <= hi ? (float)v->valuedouble : 0;
    if (!(f > 0) || !isfinite(f))
        die("%s: field '%s' must be a number in (0, %g] that a float holds above 0 (e.g. %s)", path, field, hi,
            example);
    return f;
}

/* A string field that, when present, must equal want. */
static void expect_string(const cJSON *j, const char *path, const char *field, const char *want) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, field);
    if (!v || cJSON_IsNull(v)) return;
    if (!cJSON_IsString(v)) die("%s: field '%s' must be the string \"%s\"", path, field, want);
    if (strcmp(v->valuestring, want))
        die("%s: field '%s' is \"%s\"; this kit supports only \"%s\"", path, field, v->valuestring, want);
}

void config_load(Config *c, const char *path) {
    size_t len;
    char *text = read_file(path, &len);
    if (!text) die("%s: cannot read the model config; pass --model with a folder holding config.json (make model downloads one)", path);
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (!j) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        die("%s: not valid JSON (parse error near byte %ld); download it again", path, off);
    }
    if (!cJSON_IsObject(j)) die("%s: not a JSON object; download it again", path);
    memset(c, 0, sizeof *c);
    expect_string(j, path, "model_type", "llama");
    expect_string(j, path, "hidden_act", "silu");
    c->vocab = get_int(j, path, "vocab_size", 4, MAX_VOCAB, 32000);   /* ids 0-2 special, one more to prompt with */
    c->dim = get_int(j, path, "hidden_size", 1, MAX_DIM, 2048);
    c->ffn_dim = get_int(j, path, "intermediate_size", 1, MAX_FFN, 5632);
    c->n_layers = get_int(j, path, "num_hidden_layers", 1, MAX_LAYERS, 22);
    c->n_heads = get_int(j, path, "num_attention_heads", 1, MAX_HEADS, 32);
    c->n_kv_heads = get_int(j, path, "num_key_value_heads", 1, MAX_HEADS, 4);
    c->max_seq = get_int(j, path, "max_position_embeddings", 1, MAX_POSITIONS, 2048);
    if (c->n_heads % c->n_kv_heads)
        die("%s: num_attention_heads (%d) must be a multiple of num_key_value_heads (%d)",
            path, c->n_heads, c->n_kv_heads);
    const cJSON *hd = cJSON_GetObjectItemCaseSensitive(j, "head_dim");
    if (hd && !cJSON_IsNull(hd)) c->head_dim = get_int(j, path, "head_dim", 1, MAX_HEAD_DIM, 64);
    else if (c->dim % c->n_heads)
        die("%s: hidden_size (%d) must be a multiple of num_attention_heads (%d) when field 'head_dim' is absent",
            path, c->dim, c->n_heads);
    else c->head_dim = c->dim / c->n_heads;
    if (c->head_dim % 2) die("%s: the head size (%d) must be even for rotary embeddings", path, c->head_dim);
    c->norm_eps = get_positive(cJSON_GetObjectItemCaseSensitive(j, "rms_norm_eps"), path, "rms_norm_eps", MAX_EPS,
                               "1e-05");

    /* RoPE: old form has rope_theta at the top (and rope_scaling), new form rope_parameters. */
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(j, "rope_scaling");
    if (rs && !cJSON_IsNull(rs))
        die("%s: field 'rope_scaling' is set; this kit supports only plain RoPE (rope_scaling null)", path);
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(j, "rope_parameters");
    if (rp && cJSON_IsObject(rp)) {
        const cJSON *rt = cJSON_GetObjectItemCaseSensitive(rp, "rope_type");
        if (rt && !(cJSON_IsString(rt) && !strcmp(rt->valuestring, "default")))
            die("%s: field 'rope_parameters.rope_type' is not \"default\"; this kit supports only plain RoPE", path);
        c->rope_theta = get_positive(cJSON_GetObjectItemCaseSensitive(rp, "rope_theta"), path,
                                     "rope_parameters.rope_theta", MAX_THETA, "10000.0");
    } else {
        c->rope_theta = get_positive(cJSON_GetObjectItemCaseSensitive(j, "rope_theta"), path,
                                     "rope_theta", MAX_THETA, "10000.0");
    }

    c->bos_id = get_token_id(j, path, "bos_token_id", c->vocab, 1);
    c->eos_id = get_token_id(j, path, "eos_token_id", c->vocab, 2);
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(j, "tie_word_embeddings");
    if (tie && !cJSON_IsNull(tie) && !cJSON_IsBool(tie))
        die("%s: field 'tie_word_embeddings' must be true or false", path);
    c->tied = cJSON_IsTrue(tie);

    const char *dfield = cJSON_GetObjectItemCaseSensitive(j, "dtype") ? "dtype" : "torch_dtype";
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, dfield);
    if (!dt) die("%s: field 'torch_dtype' (or 'dtype') is missing (\"bfloat16\", \"float16\" or \"float32\")", path);
    if (!cJSON_IsString(dt) || (strcmp(dt->valuestring, "bfloat16") && strcmp(dt->valuestring, "float16") &&
                                strcmp(dt->valuestring, "float32")))
        die("%s: field '%s' must be \"bfloat16\", \"float16\" or \"float32\"", path, dfield);
    snprintf(c->dtype, sizeof c->dtype, "%s", dt->valuestring);
    cJSON_Delete(j);
    free(text);
}

void config_tinyllama(Config *c) {
    *c = (Config){.vocab = 32000, .dim = 2048, .ffn_dim = 5632, .n_layers = 22, .n_heads = 32,
                  .n_kv_heads = 4, .head_dim = 64, .max_seq = 2048, .norm_eps = 1e-5f,
                  .rope_theta = 10000.0f, .bos_id = 1, .eos_id = 2, .tied = 0, .dtype = "bfloat16"};
}

long long config_params(const Config *c) {
    long long d = c->dim, q = (long long)c->n_heads * c->head_dim, kv = (long long)c->n_kv_heads * c->head_dim;
    long long layer = 2 * d                    /* two norms */
                    + d * q + 2 * d * kv + q * d /* q, k, v, o */
                    + 3 * d * c->ffn_dim;       /* gate, up, down */
    return (long long)c->vocab * d + c->n_layers * layer + d + (c->tied ? 0 : (long long)c->vocab * d);
}

void config_print(const Config *c) {
    printf("layers=%d dim=%d heads=%d/%d head_dim=%d ffn=%d vocab=%d max_seq=%d eps=%g theta=%g "
           "tied=%d dtype=%s params=%.3fB\n", c->n_layers, c->dim, c->n_heads, c->n_kv_heads,
           c->head_dim, c->ffn_dim, c->vocab, c->max_seq, c->norm_eps, c->rope_theta, c->tied,
           c->dtype, config_params(c) / 1e9);
}
