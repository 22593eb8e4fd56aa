/* gpu_model_internal: what a GpuModel holds, for the two files that run it: gpu_model.cu (the
 * week's model: prefill, the eager and fused steps, CUDA graphs, generate) and
 * gpu_persistent.cu (persistent mode, beyond the week). Nothing else includes it: the days
 * and tools see the model through gpu_model.h.
 *
 * Shapes below: B = max_batch rows, T = tok_cap tokens (the scratch of one forward pass:
 * PREFILL_CHUNK prompt tokens, or a decode step's B rows), S = max_seq positions, and the
 * model's dim (the residual stream), ffn_dim, vocab, n_layers, head_dim (hd), its query width
 * qd = n_heads hd and key/value width kvd = n_kv_heads hd. */
#ifndef KIT_GPU_MODEL_INTERNAL_H
#define KIT_GPU_MODEL_INTERNAL_H
#include <cublas_v2.h>
#include <stdint.h>
#include "gpu/gpu_model.h"
#include "gpu/gpu_weights.cuh"
#include "kernels/kernels.cuh"

enum {
    PREFILL_CHUNK = 512,                 /* prompt tokens per forward pass: bounds the scratch */
    CUBLAS_WORKSPACE_BYTES = 32 << 20,   /* cuBLAS's workspace, fixed, so graph capture allocates nothing */
};

typedef struct PersistState PersistState;   /* persistent mode's own (gpu_persistent.cu) */

struct GpuModel {
    Config c;
    Quant quant;
    int max_batch, max_seq, tok_cap, sms, pdl;   /* pdl: programmatic dependent launch in the fused step */
    cudaStream_t st;                /* every kernel and copy of the model runs on it */
    cublasHandle_t cb;
    void *cublas_ws;                /* CUBLAS_WORKSPACE_BYTES */
    GpuWeights w;
    half *wscratch;                 /* int8: one linear layer back in fp16, [widest N][dim] (lm_head's, or [q;k;v]'s) */
    half *kc, *vc;                  /* the KV cache: [n_layers][B][n_kv_heads][S][hd] each */
    long long kv_layer;             /* halfs of one layer of kc (or vc): B n_kv_heads S hd */
    half *cos_t, *sin_t;            /* RoPE's tables: [S][hd / 2] */
    int *d_tok, *d_pos;             /* per row (B): its last token, that token's position */
    int *h_tok;                     /* pinned host copy of d_tok (B) */
    int *h_pos, batch;              /* host copy of the positions (B), and the rows in use */
    /* a forward pass's activations */
    half *hidden;                   /* the residual stream: [T][dim] */
    half *xn;                       /* RMSNorm's output, the next linear layer's input: [T][dim] */
    half *qkv;                      /* [T][qd + 2 kvd] (token path, fused); eager: q [T][qd], k, v [T][kvd] one after another */
    half *attn;                     /* attention's output: [T][qd] */
    half *gu;                       /* [gate; up] outputs: [T][2 ffn_dim] (eager: gate [T][ffn_dim], then up) */
    half *act;                      /* silu(gate) * up: [T][ffn_dim] */
    half *tmp;                      /* a linear layer's output before its residual add (eager): [T][dim] */
    half *logits;                   /* [T][vocab] */
    half *xlast;                    /* each row's last prompt token after the final norm (prefill): [B][dim] */
    float *sq;                      /* eager RMSNorm: x.float().pow(2): [T][dim] */
    float *rs;                      /* eager RMSNorm: rsqrt(mean + eps), one a token: [T] */
    float *part;                    /* attention's partial softmaxes, per key slice (attn_part_floats) */
    int *counter;                   /* attention's slices done, per (token, kv head): [T][n_kv_heads], zeroed once */
    float *gemv_part;               /* the split GEMV's partial sums (gemv_part_floats of the widest W); B > GEMV_NORM_ROWS */
    int *gemv_counter;              /* its tiles' counters, one a 16-row tile of the widest W, zeroed once */
    int *d_ids, *d_row, *d_tpos;    /* prefill, per prompt token (B S): id, row, position */
    int *d_rowid;                   /* 0, 1, ..., B - 1: the token path's rows in a decode step */
    cudaGraphExec_t graph[2][MODEL_MAX_BATCH + 1];      /* [graph, graph_eager][batch], captured at first use */
    StepCounts counts[MODE_COUNT][MODEL_MAX_BATCH + 1]; /* [mode][batch], counted at first use */
    PersistState *ps;               /* NULL until persistent mode is first asked for */
};

void *dalloc(size_t bytes);         /* cudaMalloc, checked */

/* gpu_persistent.cu, for gpu_model.cu: why the persistent step cannot run B rows here (one
 * sentence) or NULL; the step itself; freeing what it allocated */
const char *persist_refusal(GpuModel *m, int B);
void step_persistent(GpuModel *m, int B);
void persist_free(GpuModel *m);

#endif
