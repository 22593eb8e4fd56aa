/* gpu_eager: the eager step, transformers' LlamaForCausalLM as PyTorch eager runs it, kernel
 * for kernel (model/eager_ops.c lists them: 13 before the layers, 40 launches a layer, 10
 * after; 903 launches for TinyLlama, and 925 kernels on an H200, where cuBLAS adds a split-K
 * reduce kernel to each down_proj, as it does under PyTorch).
 *
 * What PyTorch does, this does: RMSNorm in eight kernels through an fp32 copy of the
 * activations; the rotary cos and sin recomputed every forward pass from inv_freq and the
 * positions (a matmul, a cat, cos, sin, two scalings, two casts); RoPE through rotate_half
 * (mul, neg, cat, mul, add, for q and again for k); the KV cache grown by torch.cat, which
 * reads the whole cache and writes it again; scaled_dot_product_attention in one kernel; each
 * linear layer its own cuBLAS GEMM; SiLU, the gate product and the residual adds each a kernel.
 * Two things differ, neither in what the GPU does: the cache is allocated once (the cat
 * rewrites the past positions in place, with the bytes PyTorch's cat moves), so the step can
 * still be captured into a CUDA graph (graph_eager); and attention is this kit's kernel.
 * Every kernel rounds where PyTorch rounds, so the step's tokens are the fused step's.
 *
 * A prompt runs the same ops on all its tokens at once (PyTorch's prefill is its decode step
 * with T tokens), then lm_head on the last one, as generate() does. The step checks itself:
 * while it is captured (gpu_model.cu, capture), the ops it launches are held against the
 * table, and a difference stops the program with the op that differs. */
#include <string.h>
#include "gpu/gpu.h"
#include "gpu/gpu_model_internal.h"
#include "gpu/launch.h"
#include "model/eager_ops.h"

/* n values of p's type at base + off (256-byte aligned), or only counted when base is NULL */
template <class V> static void carve(V *&p, char *base, size_t &off, long long n) {
    if (base) p = (V *)(base + off);
    off += ((size_t)n * sizeof(V) + 255) / 256 * 256;
}

/* The tensors one forward pass of T tokens allocates under PyTorch, carved from one block
 * (base NULL: only the size). */
size_t eager_buffers(EagerBufs *e, char *base, const Config *c, int T) {
    const long long dim = c->dim, hd = c->head_dim, hh = hd / 2, qd = (long long)c->n_heads * hd;
    const long long kvd = (long long)c->n_kv_heads * hd, H = c->ffn_dim;
    size_t o = 0;
    carve(e->xf, base, o, T * dim), carve(e->sq, base, o, T * dim), carve(e->xs, base, o, T * dim);
    carve(e->var, base, o, T), carve(e->var_eps, base, o, T), carve(e->rs, base, o, T), carve(e->xh, base, o, T * dim);
    carve(e->arange, base, o, T), carve(e->cpos, base, o, T), carve(e->inv_freq, base, o, hh);
    carve(e->inv_x, base, o, T * hh), carve(e->pos_f, base, o, T), carve(e->freqs, base, o, T * hh);
    carve(e->emb, base, o, T * hd), carve(e->cos_f, base, o, T * hd), carve(e->cos_s, base, o, T * hd);
    carve(e->sin_f, base, o, T * hd), carve(e->sin_s, base, o, T * hd);
    carve(e->cos, base, o, T * hd), carve(e->sin, base, o, T * hd);
    carve(e->q, base, o, T * qd), carve(e->k, base, o, T * kvd), carve(e->v, base, o, T * kvd);
    carve(e->r_cos, base, o, T * qd), carve(e->r_neg, base, o, T * qd / 2), carve(e->r_rot, base, o, T * qd);
    carve(e->r_sin, base, o, T * qd), carve(e->qe, base, o, T * qd), carve(e->ke, base, o, T * kvd);
    carve(e->gate, base, o, T * H), carve(e->silu, base, o, T * H), carve(e->up, base, o, T * H);
    carve(e->act, base, o, T * H), carve(e->out, base, o, T * dim);
    return o;
}

/* LlamaRMSNorm: x (fp16) -> out, eight kernels */
static void rmsnorm(GpuModel *m, int layer, const half *x, const half *w, half *out, int T) {
    EagerBufs *e = &m->eager;
    const int dim = m->c.dim;
    const long long n = (long long)T * dim;
    k_eager_h2f(m->st, P_NORM, layer, "norm.to_fp32", x, e->xf, n);
    k_eager_pow2(m->st, layer, "norm.pow", e->xf, e->sq, n);
    k_eager_mean(m->st, layer, "norm.mean", e->sq, e->var, T, dim);
    k_eager_add_scalar(m->st, P_NORM, layer, "norm.add_eps", e->var, m->c.norm_eps, e->var_eps, T);
    k_eager_rsqrt(m->st, layer, "norm.rsqrt", e->var_eps, e->rs, T);
    k_eager_mul_f32(m->st, layer, "norm.mul", e->xf, e->rs, view_rows(dim), e->xs, n);
    k_eager_f2h(m->st, P_NORM, layer, "norm.to_fp16", e->xs, e->xh, n);
    k_eager_mul(m->st, P_NORM, layer, "norm.weight", e->xh, w, view_cols(dim), out, n);
}

/* LlamaRotaryEmbedding: cos and sin [T][hd] (fp16) for the tokens' positions. Positions:
 * `slots` rows of T / slots tokens, a row's first at start[slot]: arange + past_seen_tokens. */
static void rotary(GpuModel *m, const int *start, int T, int slots) {
    EagerBufs *e = &m->eager;
    const int hd = m->c.head_dim, hh = hd / 2, per = T / slots;
    k_eager_arange(m->st, "cache_position.arange", e->arange, per, T);
    k_eager_add_int(m->st, "cache_position.add", e->arange, start, view_rows(per), e->cpos, T);
    k_eager_f2f(m->st, "inv_freq.float", e->inv_freq, view_cols(hh), e->inv_x, (long long)slots * hh);
    k_eager_i2f(m->st, "position_ids.float", e->cpos, e->pos_f, T);
    /* freqs[slot] = inv_freq [hh x 1] @ positions [1 x per]: a batched fp32 GEMM, as torch's bmm */
    const float one = 1.f, zero = 0.f;
    op_cost(4.0 * (slots * hh + T + (long long)T * hh), 2.0 * T * hh);
    op_begin(P_ROPE, -1, "freqs");
    CUBLAS_CHECK(cublasSgemmStridedBatched(m->cb, CUBLAS_OP_N, CUBLAS_OP_N, hh, per, 1, &one, e->inv_x, hh, hh,
                                           e->pos_f, 1, per, &zero, e->freqs, hh, (long long)hh * per, slots));
    op_end();
    k_eager_cat_f32(m->st, "emb.cat", e->freqs, hh, hh, e->freqs, hh, hh, e->emb, T);
    const long long n = (long long)T * hd;
    k_eager_cos(m->st, "cos", e->emb, e->cos_f, n);
    k_eager_mul_scalar(m->st, P_ROPE, -1, "cos.scale", e->cos_f, 1.0f, e->cos_s, n);   /* attention_scaling: 1 */
    k_eager_sin(m->st, "sin", e->emb, e->sin_f, n);
    k_eager_mul_scalar(m->st, P_ROPE, -1, "sin.scale", e->sin_f, 1.0f, e->sin_s, n);
    k_eager_f2h(m->st, P_ROPE, -1, "cos.to_fp16", e->cos_s, e->cos, n);
    k_eager_f2h(m->st, P_ROPE, -1, "sin.to_fp16", e->sin_s, e->sin, n);
}

/* apply_rotary_pos_emb on x [T][heads][hd] -> y: x * cos + rotate_half(x) * sin. The five
 * ops' names are "q.mul_cos" ... or "k.mul_cos" ... (eager_ops.c's ROPE(x)). */
static void rope(GpuModel *m, int layer, const char *const names[5], const half *x, int heads, half *y, int T) {
    EagerBufs *e = &m->eager;
    const int hd = m->c.head_dim, hh = hd / 2;
    const long long rows = (long long)T * heads, n = rows * hd;
    k_eager_mul(m->st, P_ROPE, layer, names[0], x, e->cos, view_heads(heads, hd), e->r_cos, n);
    k_eager_neg(m->st, layer, names[1], x, view_upper(hd), e->r_neg, rows * hh);
    k_eager_cat(m->st, layer, names[2], e->r_neg, hh, hh, x, hd, hh, e->r_rot, rows);
    k_eager_mul(m->st, P_ROPE, layer, names[3], e->r_rot, e->sin, view_heads(heads, hd), e->r_sin, n);
    k_eager_add(m->st, P_ROPE, layer, names[4], e->r_cos, e->r_sin, view_flat(n), y, n);
}
static const char *const ROPE_Q[5] = {"q.mul_cos", "q.neg", "q.rotate_half", "q.mul_sin", "q.add"};
static const char *const ROPE_K[5] = {"k.mul_cos", "k.neg", "k.rotate_half", "k.mul_sin", "k.add"};

/* The layers for T tokens in `slots` rows of T / slots tokens (a decode step: B rows of one;
 * a prompt: one row), token t in cache row row[t] at position pos[t]; m->hidden holds the
 * embeddings on entry, and on return model.norm's output is in m->xn. */
static void layers(GpuModel *m, const int *row, const int *pos, int T, int slots, int one_row) {
    const Config *c = &m->c;
    EagerBufs *e = &m->eager;
    const int dim = c->dim, qd = c->n_heads * c->head_dim, kvd = c->n_kv_heads * c->head_dim, H = c->ffn_dim;
    const long long nd = (long long)T * dim, nh = (long long)T * H;
    const int len = kv_len(m, T, one_row);
    rotary(m, pos, T, slots);
    for (int l = 0; l < c->n_layers; l++) {
        const LayerWeights *L = &m->w.layer[l];
        rmsnorm(m, l, m->hidden, L->attn_norm, m->xn, T);                      /* input_layernorm */
        linear(m, P_Q, l, "q_proj", m->xn, T, dim, &L->wq, qd, e->q, 0.f);
        linear(m, P_K, l, "k_proj", m->xn, T, dim, &L->wk, kvd, e->k, 0.f);
        linear(m, P_V, l, "v_proj", m->xn, T, dim, &L->wv, kvd, e->v, 0.f);
        rope(m, l, ROPE_Q, e->q, c->n_heads, e->qe, T);
        rope(m, l, ROPE_K, e->k, c->n_kv_heads, e->ke, T);
        k_eager_cat_cache(m->st, l, "cache.k_cat", e->ke, row, pos, m->kc + l * m->kv_layer, slots, T / slots,
                          c->n_kv_heads, c->head_dim, m->max_seq, len);
        k_eager_cat_cache(m->st, l, "cache.v_cat", e->v, row, pos, m->vc + l * m->kv_layer, slots, T / slots,
                          c->n_kv_heads, c->head_dim, m->max_seq, len);
        attention(m, 0, l, e->qe, qd, row, pos, T, !one_row, one_row);
        linear(m, P_O, l, "o_proj", m->attn, T, qd, &L->wo, dim, e->out, 0.f);
        k_eager_add(m->st, P_RESIDUAL, l, "residual.add", m->hidden, e->out, view_flat(nd), m->hidden, nd);
        rmsnorm(m, l, m->hidden, L->ffn_norm, m->xn, T);                       /* post_attention_layernorm */
        linear(m, P_GATE, l, "gate_proj", m->xn, T, dim, &L->wgate, H, e->gate, 0.f);
        k_eager_silu(m->st, l, "act_fn", e->gate, e->silu, nh);
        linear(m, P_UP, l, "up_proj", m->xn, T, dim, &L->wup, H, e->up, 0.f);
        k_eager_mul(m->st, P_SILU_MUL, l, "act.mul", e->silu, e->up, view_flat(nh), e->act, nh);
        linear(m, P_DOWN, l, "down_proj", e->act, T, H, &L->wdown, dim, e->out, 0.f);
        k_eager_add(m->st, P_RESIDUAL, l, "residual.add", m->hidden, e->out, view_flat(nd), m->hidden, nd);
    }
    rmsnorm(m, -1, m->hidden, m->w.final_norm, m->xn, T);                      /* model.norm */
}

/* One decode step of the B rows: each row's last token at its position d_pos[r]; the next
 * tokens go to d_tok, and the positions move on (argmax) */
void step_eager(GpuModel *m, int B) {
    const Config *c = &m->c;
    k_embed(m->st, 0, m->d_tok, m->w.embed, m->hidden, B, c->dim);
    layers(m, m->d_rowid, m->d_pos, B, B, 0);
    linear(m, P_LM_HEAD, -1, "lm_head", m->xn, B, c->dim, &m->w.lm_head, c->vocab, m->logits, 0.f);
    k_argmax(m->st, 0, m->logits, B, c->vocab, m->d_tok, m->d_pos, 1);
}

/* A prompt chunk of n tokens of one row (ids, row, pos: device arrays of n), the eager way.
 * last: it is the prompt's last chunk, so lm_head runs on its last token and argmax writes the
 * row's first new token to tok (with all_logits, lm_head runs on every token instead, as
 * model(ids) does, into m->logits). */
void prefill_eager(GpuModel *m, const int *ids, const int *row, const int *pos, int n, int last, int all_logits,
                   int *tok) {
    const Config *c = &m->c;
    k_embed(m->st, 0, ids, m->w.embed, m->hidden, n, c->dim);
    layers(m, row, pos, n, 1, 1);
    if (!last && !all_logits) return;
    const int from = all_logits ? 0 : n - 1, rows = all_logits ? n : 1;
    linear(m, P_LM_HEAD, -1, "lm_head", m->xn + (long long)from * c->dim, rows, c->dim, &m->w.lm_head, c->vocab,
           m->logits, 0.f);
    if (last) k_argmax(m->st, 0, m->logits + (long long)(rows - 1) * c->vocab, 1, c->vocab, tok, NULL, 0);
}

/* The ops a captured eager step launched (rec, n of them; int8's dequantize kernels are the
 * weights' business, not an op of the model, and are skipped) against the table: 0, or dies
 * naming the first op that differs. */
void eager_check(const GpuModel *m, const OpRecord *rec, int n) {
    const int L = m->c.n_layers, want = eager_ops_per_pass(L);
    int i = 0;
    for (int r = 0; r < n; r++) {
        if (rec[r].part == P_DEQUANT) continue;
        int layer;
        const EagerOp *op = eager_op_at(L, i, &layer);
        if (!op || strcmp(op->op, rec[r].op) || op->part != rec[r].part || layer != rec[r].layer)
            die("gpu_eager.cu: the eager step's op %d is %s (layer %d), where model/eager_ops.c lists %s (layer %d): "
                "the step and its table must change together", i, rec[r].op, rec[r].layer, op ? op->op : "nothing",
                layer);
        i++;
    }
    if (i != want)
        die("gpu_eager.cu: the eager step launched %d ops, model/eager_ops.c lists %d for %d layers", i, want, L);
}
