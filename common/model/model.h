/* model: the Llama tensors a checkpoint must hold, the synthetic weights, and the fp32
 * CPU reference forward pass, which is the kit's specification of the math. */
#ifndef KIT_MODEL_H
#define KIT_MODEL_H
#include <math.h>
#include <stdint.h>
#include "model/config.h"
#include "model/safetensors.h"
#ifdef __cplusplus
extern "C" {
#endif
#ifdef __CUDACC__
#define KIT_HD __host__ __device__
#else
#define KIT_HD
#endif

typedef enum {
    T_EMBED, T_ATTN_NORM, T_Q, T_K, T_V, T_O, T_FFN_NORM, T_GATE, T_UP, T_DOWN,
    T_FINAL_NORM, T_LM_HEAD, T_KINDS
} TensorKind;

typedef struct {
    char name[96];          /* Hugging Face name, e.g. model.layers.3.self_attn.q_proj.weight */
    TensorKind kind;
    int layer;              /* -1 for embed, final norm, lm_head */
    long long rows, cols;   /* [out, in] for matrices; [n, 0] for norm vectors */
} ModelTensor;

/* Fills out[] (NULL to only count) in checkpoint order: embed, then per layer
 * attn_norm q k v o ffn_norm gate up down, then final norm, lm_head (absent when tied). */
int model_tensors(const Config *c, ModelTensor *out);
/* Every tensor present, 2-D/1-D with the config's shape; dies naming file and tensor. */
void model_check(const Config *c, const SafeTensors *st);
long long model_weight_bytes_fp16(const Config *c);   /* parameters x 2 */

/* Synthetic weights: a counter-based hash of (seed, tensor index, element), identical on
 * the CPU and the GPU, rounded to fp16 by the caller. Linear and embedding weights are
 * uniform with std 0.02 (like Hugging Face's init); norm weights are 1 +- 0.1. */
static inline KIT_HD uint64_t synth_mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static inline KIT_HD float synth_value(uint64_t seed, int tensor_index, long long i, int is_norm) {
    uint64_t h = synth_mix(seed * 0x100000001B3ull ^ ((uint64_t)tensor_index << 40) ^ (uint64_t)i);
    float u = (float)(h >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;   /* [-1, 1) */
    return is_norm ? 1.0f + 0.1f * u : 0.034641016f * u;                 /* std 0.02 */
}

/* int8 weight-only quantization, one output row of a linear layer at a time. The GPU's
 * quantize kernel and the CPU reference both call these two, so they agree bit for bit:
 *   scale = max_k |w[k]| / 127 (fp32), q[k] = w[k] / scale rounded half to even (rintf in the
 *   default rounding mode), clamped to [-127, 127]; a row of zeros has scale 0 and q = 0.
 * -128 is never used, so the range is symmetric and -q is always a q. */
static inline KIT_HD float int8_scale(float absmax) { return absmax / 127.0f; }
static inline KIT_HD int int8_round(float w, float scale) {
    if (!(scale > 0)) return 0;
    const float q = rintf(w / scale);
    return q > 127.0f ? 127 : q < -127.0f ? -127 : (int)q;
}
/* One row of n weights to q[0..n), returning its scale. */
float quantize_row_int8(const float *w, int n, int8_t *q);

/* ---- the fp32 CPU reference ---- */
typedef struct CpuModel CpuModel;
/* st == NULL: synthetic weights from seed. max_seq: KV cache length. */
CpuModel *cpu_model_open(const Config *c, const SafeTensors *st, uint64_t seed, int max_seq);
/* Runs tokens[0..n) at positions pos..pos+n-1, appending to the KV cache. Writes the
 * logits of every position (n x vocab) when all_logits, else of the last one (vocab). */
void cpu_forward(CpuModel *m, const int *tokens, int n, int pos, float *logits, int all_logits);
int argmax_f32(const float *x, int n);
/* The int8 reference (--cpu --quant int8): every linear layer's weights (q, k, v, o, gate, up,
 * down, lm_head) replaced by what int8 holds of them, q x scale row by row; embeddings and
 * norms stay as they are, and every product and sum stays fp32. Call before cpu_forward. */
void cpu_model_quantize_int8(CpuModel *m);
void cpu_model_free(CpuModel *m);

#ifdef __cplusplus
}
#endif
#endif
