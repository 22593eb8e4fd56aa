/* theory: the week's arithmetic. Bytes are fp16 (2 per parameter), GB and TB are powers of
 * ten, bandwidths are in GB/s and peaks in TFLOP/s. */
#include <math.h>
#include <string.h>
#include <ctype.h>
#include "model/theory.h"

double weight_bytes(const Config *c) { return (double)config_params(c) * 2.0; }

double linear_params(const Config *c) {
    const double d = c->dim, q = (double)c->n_heads * c->head_dim, kv = (double)c->n_kv_heads * c->head_dim;
    return c->n_layers * (d * q + 2 * d * kv + q * d + 3 * d * c->ffn_dim) + (double)c->vocab * d;
}

double linear_rows(const Config *c) {
    const double q = (double)c->n_heads * c->head_dim, kv = (double)c->n_kv_heads * c->head_dim;
    return c->n_layers * (q + 2 * kv + c->dim + 2.0 * c->ffn_dim + c->dim) + c->vocab;
}

/* A tied lm_head is the embedding matrix: int8 keeps the embedding in fp16 and adds an int8
 * copy for lm_head, so the rest (params - linear) is counted with lm_head taken out. */
double int8_weight_bytes(const Config *c) {
    const double rest = (double)config_params(c) + (c->tied ? (double)c->vocab * c->dim : 0) - linear_params(c);
    return linear_params(c) + 4 * linear_rows(c) + 2 * rest;
}

/* K and V, every layer, every KV head: 2 x layers x kv_heads x head_dim x 2 bytes. */
double kv_bytes_per_token(const Config *c) {
    return 2.0 * c->n_layers * c->n_kv_heads * c->head_dim * 2.0;
}

double floor_tpot_ms(double bytes, double bw_gbs) { return bytes / (bw_gbs * 1e9) * 1e3; }

double ridge_point(double tflops, double bw_gbs) { return tflops * 1e12 / (bw_gbs * 1e9); }

/* One multiply and one add per weight per token (attention over the cache left out). */
double decode_flops(const Config *c) { return 2.0 * (double)config_params(c); }

/* 2 x params x tokens FLOP over 2 x params bytes read once: the prompt length. */
double prefill_intensity(int tokens) { return (double)tokens; }

double ttft_floor_ms(const Config *c, int tokens, double tflops, double bw_gbs,
                     double *compute_ms, double *bytes_ms) {
    double cm = tflops > 0 ? decode_flops(c) * tokens / (tflops * 1e12) * 1e3 : 0;
    double bm = floor_tpot_ms(weight_bytes(c), bw_gbs);
    if (compute_ms) *compute_ms = cm;
    if (bytes_ms) *bytes_ms = bm;
    return cm > bm ? cm : bm;
}

/* Dense (no sparsity) fp16 tensor-core peaks from the datasheets. A name matches when it
 * appears in the device name as a whole word ("A10" is not "A100" nor "A10G") on the
 * listed compute capability; the first match wins, so variants come before their family.
 * A 0 entry is a variant whose figure differs from its family's and is not listed here. */
static const struct { int major, minor; const char *name; double tflops; const char *source; } PEAKS[] = {
    {7, 0, "V100-PCIE", 112, "NVIDIA V100 datasheet (PCIe): 112 TFLOP/s fp16 tensor"},
    {7, 0, "V100",      125, "NVIDIA V100 datasheet (SXM2): 125 TFLOP/s fp16 tensor"},
    {7, 5, "T4",         65, "NVIDIA T4 product page: 65 TFLOP/s fp16 tensor (mixed precision)"},
    {8, 0, "A100",      312, "NVIDIA A100 datasheet: 312 TFLOP/s fp16 tensor, dense"},
    {8, 6, "A10",       125, "NVIDIA A10 datasheet: 125 TFLOP/s fp16 tensor, dense"},
    {8, 9, "L4",        121, "NVIDIA L4 datasheet: 121 TFLOP/s fp16 tensor, dense (242 sparse)"},
    {9, 0, "H100 PCIe", 756, "NVIDIA H100 datasheet (PCIe): 756 TFLOP/s fp16 tensor, dense"},
    {9, 0, "H100 NVL",    0, NULL},
    {9, 0, "H100",      989, "NVIDIA H100 datasheet (SXM): 989 TFLOP/s fp16 tensor, dense"},
    {9, 0, "H200 NVL",    0, NULL},
    {9, 0, "H200",      989, "NVIDIA H200 datasheet (SXM): 989 TFLOP/s fp16 tensor, dense"},
};

static int has_word(const char *hay, const char *word) {
    size_t n = strlen(word);
    for (const char *p = hay; (p = strstr(p, word)) != NULL; p++) {
        int left = p == hay || !isalnum((unsigned char)p[-1]);
        int right = !isalnum((unsigned char)p[n]);
        if (left && right) return 1;
    }
    return 0;
}

double peak_fp16_tflops(int cc_major, int cc_minor, const char *name, const char **source) {
    static const char *unknown = "unknown GPU: peak not in the table";
    for (size_t i = 0; name && i < sizeof PEAKS / sizeof PEAKS[0]; i++) {
        if (PEAKS[i].major != cc_major || PEAKS[i].minor != cc_minor || !has_word(name, PEAKS[i].name))
            continue;
        if (source) *source = PEAKS[i].tflops > 0 ? PEAKS[i].source : unknown;
        return PEAKS[i].tflops;
    }
    if (source) *source = unknown;
    return 0;
}

FitGB fit_gb(const Config *c, double framework_gb, long long tokens) {
    FitGB f;
    f.weights_gb = weight_bytes(c) / 1e9;
    f.framework_gb = framework_gb;
    f.kv_gb = kv_bytes_per_token(c) * (double)tokens / 1e9;
    f.total_gb = f.weights_gb + f.framework_gb + f.kv_gb;
    return f;
}

/* meta-llama/Llama-2-7b-hf config.json. */
void config_llama2_7b(Config *c) {
    *c = (Config){.vocab = 32000, .dim = 4096, .ffn_dim = 11008, .n_layers = 32, .n_heads = 32,
                  .n_kv_heads = 32, .head_dim = 128, .max_seq = 4096, .norm_eps = 1e-5f,
                  .rope_theta = 10000.0f, .bos_id = 1, .eos_id = 2, .tied = 0, .dtype = "float16"};
}

double int8_speedup_from_params(double c16_us, double e16, double c8_us, double e8, double bw_gbs, double ratio) {
    const double slope = 2 / e16 - ratio / e8;    /* us per weight the gap grows by, x bw 1e3 */
    if (!(slope > 0)) return NAN;
    return fmax(0, (ratio * c8_us - c16_us) * bw_gbs * 1e3 / slope);
}
