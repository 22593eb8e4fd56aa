/* theory: the week's arithmetic, for any GPU and any Llama shape. These are the numbers
 * the measurements are compared with; each is a pure function, unit-tested against the
 * lesson's T4 figures (6.9 ms, 145 tok/s, ridge 203, 22.5 KB of KV per token). */
#ifndef KIT_THEORY_H
#define KIT_THEORY_H
#include "model/config.h"
#ifdef __cplusplus
extern "C" {
#endif

double weight_bytes(const Config *c);                      /* params x 2 (fp16) */
/* int8 weight-only: the linear layers (q, k, v, o, gate, up, down, lm_head, which is counted
 * even when tied to the embedding) hold 1 byte a weight and an fp32 scale per output row
 * (max |w| / 127); embeddings and norms stay 2 bytes a parameter. The int8 floor is these
 * bytes / the bandwidth, and int8 TPOT is reported against it and against the 16-bit floor. */
double linear_params(const Config *c);                     /* the linear layers' weights */
double linear_rows(const Config *c);                       /* their output rows: one scale each */
double int8_weight_bytes(const Config *c);                 /* linear x 1 + rows x 4 + the rest x 2 */
double kv_bytes_per_token(const Config *c);                /* 2 x layers x kv_heads x head_dim x 2 */
double floor_tpot_ms(double bytes, double bw_gbs);         /* bytes / bandwidth */
double ridge_point(double tflops, double bw_gbs);          /* FLOP per byte */
double decode_flops(const Config *c);                      /* 2 x params per token */
double prefill_intensity(int tokens);                      /* FLOP per weight byte = tokens */
/* TTFT floor for a prompt: max(compute term, weight-bytes term), both returned. */
double ttft_floor_ms(const Config *c, int tokens, double tflops, double bw_gbs,
                     double *compute_ms, double *bytes_ms);
/* fp16 dense tensor-core peak by compute capability / name; 0 and "unknown" if unknown. */
double peak_fp16_tflops(int cc_major, int cc_minor, const char *name, const char **source);

/* The GEMV curve's question (day09): a matrix of P weights takes c + bytes / (bw x e) us in
 * each precision (fp16 reads 2P bytes, int8 P: its scales, 4 bytes a row, left out), so from
 * how many weights is int8 `ratio` times faster? P = (ratio c8 - c16) bw / (2 / e16 - ratio /
 * e8): 0 when it is from the start, NAN when never (the ratio tends to 2 e8 / e16, which is
 * then at most `ratio`). c in us, bw in GB/s. */
double int8_speedup_from_params(double c16_us, double e16, double c8_us, double e8, double bw_gbs, double ratio);

/* Will a model fit? weights + framework overhead + KV cache for `tokens` (batch x context)
 * tokens, in GB (1e9 B). The lesson's Llama-2-7B-on-a-T4 arithmetic:
 * 13.5 GB + 1.5 GB = 15 GB of ~15 GB usable, no room left for the KV cache. */
typedef struct { double weights_gb, framework_gb, kv_gb, total_gb; } FitGB;
FitGB fit_gb(const Config *c, double framework_gb, long long tokens);
/* Llama-2-7B's shape (32 layers, 4096 wide, MHA with 32 KV heads): the lesson's "7B". */
void config_llama2_7b(Config *c);

#ifdef __cplusplus
}
#endif
#endif
