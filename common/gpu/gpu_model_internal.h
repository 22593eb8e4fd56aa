/* gpu_model_internal: what a GpuModel holds, for the three files that run it: gpu_model.cu
 * (the week's model: prefill, the fused step, CUDA graphs, generate), gpu_eager.cu (the eager
 * step, PyTorch's kernels) and gpu_persistent.cu (persistent mode, beyond the week). Nothing
 * else includes it: the days and tools see the model through gpu_model.h.
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
#include "gpu/launch.h"

enum {
    PREFILL_CHUNK = 512,                 /* prompt tokens per forward pass: bounds the scratch */
    CUBLAS_WORKSPACE_BYTES = 32 << 20,   /* cuBLAS's workspace, fixed, so graph capture allocates nothing */
};

typedef struct PersistState PersistState;   /* persistent mode's own (gpu_persistent.cu) */

/* The eager step's tensors (gpu_eager.cu), what PyTorch allocates in one forward pass of T
 * tokens (hh = hd / 2, H = ffn_dim) */
typedef struct {
    float *xf, *sq, *xs;            /* RMSNorm: x.float(), .pow(2), x * rsqrt(var + eps): [T][dim] */
    float *var, *var_eps, *rs;      /* .mean(-1), + eps, rsqrt: [T] */
    half *xh;                       /* (x * rsqrt).half(): [T][dim] */
    int *arange, *cpos;             /* cache_position: arange, + past_seen_tokens: [T] */
    float *inv_freq;                /* [hh], written with the RoPE table at open */
    float *inv_x, *pos_f, *freqs;   /* inv_freq expanded [slots][hh], positions [T], inv_freq @ positions [T][hh] */
    float *emb, *cos_f, *cos_s, *sin_f, *sin_s;   /* cat(freqs, freqs), cos, * scaling, sin, * scaling: [T][hd] */
    half *cos, *sin;                /* .to(fp16): [T][hd] */
    half *q, *k, *v;                /* the projections: [T][qd], [T][kvd], [T][kvd] */
    half *r_cos, *r_neg, *r_rot, *r_sin;   /* RoPE's x * cos, -x2, rotate_half(x), * sin: [T][qd] (neg: half) */
    half *qe, *ke;                  /* q_embed [T][qd], k_embed [T][kvd] */
    half *gate, *silu, *up, *act;   /* the MLP: [T][H] */
    half *out;                      /* o_proj's and down_proj's output before the residual add: [T][dim] */
} EagerBufs;

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
    half *logits;                   /* [T][vocab] */
    half *xlast;                    /* each row's last prompt token after the final norm (prefill): [B][dim] */
    EagerBufs eager;                /* the eager step's (one allocation: eager_block) */
    void *eager_block;
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

/* gpu_model.cu, for gpu_eager.cu: a linear layer through cuBLAS (y (+)= x W^T, T tokens,
 * beta 1: add to y), and attention of T queries (decode: a step's rows; one_row: a prompt's) */
void linear(GpuModel *m, Part p, int layer, const char *op, const half *x, int T, int K, const LinearWeight *LW,
            int N, half *y, float beta);
int kv_len(const GpuModel *m, int T, int one_row);   /* the keys a query sees, for op_cost */
void attention(GpuModel *m, int pdl, int layer, const half *q, int q_stride, const int *row, const int *pos, int T,
               int decode, int one_row);

/* gpu_eager.cu: the eager step's tensors (their size for T tokens; base NULL: only the size),
 * one decode step of B rows, one prompt chunk of one row, and the check of a captured step's
 * ops (launch_record) against model/eager_ops.c */
size_t eager_buffers(EagerBufs *e, char *base, const Config *c, int T);
void step_eager(GpuModel *m, int B);
void prefill_eager(GpuModel *m, const int *ids, const int *row, const int *pos, int n, int last, int all_logits,
                   int *tok);
void eager_check(const GpuModel *m, const OpRecord *rec, int n);

/* gpu_persistent.cu, for gpu_model.cu: why the persistent step cannot run B rows here (one
 * sentence) or NULL; the step itself; freeing what it allocated */
const char *persist_refusal(GpuModel *m, int B);
void step_persistent(GpuModel *m, int B);
void persist_free(GpuModel *m);

#endif
