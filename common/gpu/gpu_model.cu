/* gpu_model: TinyLlama on the GPU in fp16, the week's model - the KV cache, prefill, the
 * decode step in the lesson's four modes, CUDA graphs, generate. The kernels are in
 * ../kernels/, the weights in gpu_weights.cu, what a GpuModel holds (every buffer with its
 * shape) in gpu_model_internal.h, and the fifth mode, persistent (beyond the week), in
 * gpu_persistent.cu.
 *
 * Three ways through one decode step (B rows, row r's next token at position pos[r]):
 *   eager        903 launches for TinyLlama: PyTorch eager's kernels for transformers' Llama,
 *                one for one (gpu_eager.cu; model/eager_ops.c lists them), the 155 linear
 *                layers through cuBLAS.
 *   fused, B<=8  113 launches: embed, then per layer gemv_qkv_rope_append, attention,
 *                gemv_residual (o), gemv_gate_up_silu, gemv_residual (down), then
 *                gemv_lm_head and argmax (the GEMV reads each weight once for all rows,
 *                RMSNorm in its prologue). Programmatic dependent launch on sm_90 (set
 *                KIT_NO_PDL=1 to see it without).
 *   fused, B<=32 the same plus a rmsnorm kernel before each normed GEMV: 158 launches.
 *                A row's tokens do not depend on the batch size (see attention() and
 *                gpu_prefill_rows(): prompts run row after row).
 *   fused, B>32  the token path prefill uses (cuBLAS on [q;k;v] and [gate;up], rmsnorm,
 *                rope_kv_append, attention, silu_mul): 202 launches.
 * graph / graph_eager capture the fused / eager step once per batch size and replay it.
 * int8 weights (Quant, gpu_model.h) keep these launches: fused and graph run the GEMVs on the
 * int8 weights (gemv_*_int8). int8_unfused, and the eager modes and the prefill under either,
 * launch a dequantize_int8 before each linear layer (+89 a fused step, +155 an eager one).
 * The prefill runs the token path, or, for the eager modes, the eager step's ops on the whole
 * prompt (as PyTorch's prefill does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/gpu.h"
#include "gpu/gpu_model_internal.h"
#include "gpu/gpu_weights.cuh"
#include "kernels/kernels.cuh"
#include "gpu/launch.h"
#include "model/model.h"
#include "model/theory.h"
#include "model/eager_ops.h"
#include "measure/stats.h"

const char *mode_name(Mode m) {
    static const char *n[] = {"eager", "fused", "graph", "graph_eager", "persistent"};
    return m >= 0 && m < MODE_COUNT ? n[m] : "?";
}
int mode_from_name(const char *s) {
    for (int i = 0; i < MODE_COUNT; i++)
        if (!strcmp(s, mode_name((Mode)i))) return i;
    return -1;
}
const char *quant_name(Quant q) {
    static const char *n[] = {"fp16", "int8", "int8_unfused"};
    return q >= 0 && q < QUANT_COUNT ? n[q] : "?";
}
int quant_from_name(const char *s) {
    for (int i = 0; i < QUANT_COUNT; i++)
        if (!strcmp(s, quant_name((Quant)i))) return i;
    return -1;
}

/* A linear layer's weights W (N x K) as fp16, for cuBLAS or the fp16 GEMV: as stored, or, int8,
 * written back to fp16 into m->wscratch by the dequantize kernel first (the unfused path). The
 * scratch is one buffer: each layer's kernel has read it before the next dequantize writes it
 * (stream order, and the dequantize kernel's PDL wait). */
static const half *fp16_weights(GpuModel *m, int pdl, int layer, const LinearWeight *W, int N, int K) {
    if (W->h) return W->h;
    k_dequantize_int8(m->st, pdl, layer, W->q, W->scale, m->wscratch, N, K);
    return m->wscratch;
}

/* The keys a query of these T tokens sees, for an op's cost (launch.h's op_cost): a decode
 * step's rows at their positions (the mean), a prompt chunk's T. */
int kv_len(const GpuModel *m, int T, int one_row) {
    if (one_row) return T;
    long long sum = 0;
    for (int r = 0; r < T && r < m->max_batch; r++) sum += m->h_pos[r] + 1;
    return (int)(sum / (T < m->max_batch ? T : m->max_batch));
}

/* y[T][N] (+)= x[T][K] W^T, W [N][K]: nn.Linear through cublasGemmEx, fp16 in, fp32 compute
 * (int8 weights dequantized first: cuBLAS has no int8-weight, fp16-activation GEMM) */
void linear(GpuModel *m, Part p, int layer, const char *op, const half *x, int T, int K,
                   const LinearWeight *LW, int N, half *y, float beta) {
    const float alpha = 1.f;
    const half *W = fp16_weights(m, 0, layer, LW, N, K);
    g_launch.weight_bytes += 2LL * N * K;
    op_cost(2.0 * ((double)N * K + (double)T * K + (beta != 0.f ? 2.0 : 1.0) * T * N), 2.0 * T * N * K);
    op_begin(p, layer, op);
    CUBLAS_CHECK(cublasGemmEx(m->cb, CUBLAS_OP_T, CUBLAS_OP_N, N, T, K, &alpha, W, CUDA_R_16F, K, x, CUDA_R_16F, K,
                              &beta, y, CUDA_R_16F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    op_end();
}

/* attention for T queries. A decode step offers ATTN_MAX_SPLITS slices of the keys, and the
 * kernel uses as many as the query's length needs (ATTN_SLICE_KEYS keys or more each), so a
 * row's result does not depend on the batch size; the token path offers slices only while
 * the queries alone would leave the GPU idle. A prompt's queries (one_row: all of one row)
 * go through the tiled kernel, which loads each key once for a tile of queries. */
void attention(GpuModel *m, int pdl, int layer, const half *q, int q_stride, const int *row, const int *pos,
                      int T, int decode, int one_row) {
    const Config *c = &m->c;
    const double len = kv_len(m, T, one_row), qo = 2.0 * T * c->n_heads * c->head_dim * sizeof(half);
    op_cost(qo + 2.0 * (one_row ? 1 : T) * c->n_kv_heads * len * c->head_dim * sizeof(half),
            4.0 * T * c->n_heads * len * c->head_dim);   /* q and out; each row's keys and values once */
    int blocks = T * c->n_kv_heads, splits = decode ? ATTN_MAX_SPLITS : (m->sms / 2 + blocks - 1) / blocks;
    AttnArgs a = {q, q_stride, row, pos, m->kc + layer * m->kv_layer, m->vc + layer * m->kv_layer,
                  m->attn, c->n_heads * c->head_dim, T, c->n_heads, c->n_kv_heads, c->head_dim, m->max_seq,
                  splits > ATTN_MAX_SPLITS ? ATTN_MAX_SPLITS : splits, m->part, m->counter, one_row};
    k_attention(m->st, pdl, layer, &a);
}

/* ---- the token path: T tokens at (row[t], pos[t]) through every layer into m->hidden
 * (one_row: they are all of row row[0], a prompt chunk) ---- */
static void forward_tokens(GpuModel *m, const int *ids, const int *row, const int *pos, int T, int one_row) {
    const Config *c = &m->c;
    const int dim = c->dim, qd = c->n_heads * c->head_dim, qkvd = (c->n_heads + 2 * c->n_kv_heads) * c->head_dim;
    k_embed(m->st, 0, ids, m->w.embed, m->hidden, T, dim);
    for (int l = 0; l < c->n_layers; l++) {
        const LayerWeights *L = &m->w.layer[l];
        k_rmsnorm(m->st, 0, l, m->hidden, L->attn_norm, m->xn, T, dim, c->norm_eps);
        linear(m, P_QKV, l, "qkv_proj", m->xn, T, dim, &L->wqkv, qkvd, m->qkv, 0.f);
        k_rope_kv_append(m->st, l, m->qkv, row, pos, m->cos_t, m->sin_t, m->kc + l * m->kv_layer,
                         m->vc + l * m->kv_layer, T, c->n_heads, c->n_kv_heads, c->head_dim, m->max_seq);
        attention(m, 0, l, m->qkv, qkvd, row, pos, T, 0, one_row);
        linear(m, P_O, l, "o_proj+residual", m->attn, T, qd, &L->wo, dim, m->hidden, 1.f);
        k_rmsnorm(m->st, 0, l, m->hidden, L->ffn_norm, m->xn, T, dim, c->norm_eps);
        linear(m, P_GATE_UP, l, "gate_up_proj", m->xn, T, dim, &L->wgu, 2 * c->ffn_dim, m->gu, 0.f);
        k_silu_mul(m->st, l, m->gu, m->act, T, c->ffn_dim);
        linear(m, P_DOWN, l, "down_proj+residual", m->act, T, c->ffn_dim, &L->wdown, dim, m->hidden, 1.f);
    }
}

/* One decode GEMV of the linear layer W in the fused step (a.N, a.K set): fp16 weights as
 * they are; int8 read by the GEMV itself (QUANT_INT8); or dequantized into the scratch first
 * (QUANT_INT8_UNFUSED), and then the GEMV goes without programmatic dependent launch, since it
 * loads its first weights before it waits for the kernel before, which is the one writing them. */
static void gemv(GpuModel *m, int pdl, Part p, int layer, int epi, const LinearWeight *W, GemvArgs a) {
    if (W->q && m->quant == QUANT_INT8) a.w8 = W->q, a.scale = W->scale;
    else {
        a.w = fp16_weights(m, pdl, layer, W, a.N, a.K);
        if (!W->h) pdl = 0;
    }
    k_gemv(m->st, pdl, p, layer, epi, &a);
}

/* ---- the fused step: per layer a GEMV that norms its input and writes q, k and v (RoPE'd,
 * k and v into the cache), attention, a GEMV that adds o to the residual, a GEMV that norms
 * and applies silu(gate) * up, a GEMV that adds down to the residual ---- */
static void step_fused(GpuModel *m, int B) {
    const Config *c = &m->c;
    const int dim = c->dim, qd = c->n_heads * c->head_dim, qkvd = qd + 2 * c->n_kv_heads * c->head_dim;
    const int H = c->ffn_dim, pdl = m->pdl;
    const float eps = c->norm_eps;
    if (B > GEMV_MAX_ROWS) {                                 /* every row one token of the token path */
        forward_tokens(m, m->d_tok, m->d_rowid, m->d_pos, B, 0);
        k_rmsnorm(m->st, 0, -1, m->hidden, m->w.final_norm, m->xn, B, dim, eps);
        linear(m, P_LM_HEAD, -1, "lm_head", m->xn, B, dim, &m->w.lm_head, c->vocab, m->logits, 0.f);
        k_argmax(m->st, 0, m->logits, B, c->vocab, m->d_tok, m->d_pos, 1);
        return;
    }
    /* Up to GEMV_NORM_ROWS rows a GEMV norms its input itself (its prologue, from the residual
     * stream); beyond, an rmsnorm kernel writes xn first. Every GEMV below also gets the split
     * kernel's scratch (part, counter: NULL when the model holds <= GEMV_NORM_ROWS rows) and
     * epi_early: the residual and the positions its epilogue reads were written two or more
     * kernels before it, so under programmatic dependent launch it may read them early. */
    const int prologue = B <= GEMV_NORM_ROWS;
    const half *normed = prologue ? m->hidden : m->xn;      /* what a normed GEMV reads */
    k_embed(m->st, pdl, m->d_tok, m->w.embed, m->hidden, B, dim);
    for (int l = 0; l < c->n_layers; l++) {
        const LayerWeights *L = &m->w.layer[l];
        if (!prologue) k_rmsnorm(m->st, pdl, l, m->hidden, L->attn_norm, m->xn, B, dim, eps);
        gemv(m, pdl, P_QKV, l, EPI_QKV_ROPE, &L->wqkv, (GemvArgs){
            .N = qkvd, .K = dim, .x = normed, .x_stride = dim, .B = B, .norm_w = prologue ? L->attn_norm : NULL,
            .eps = eps, .y = m->qkv, .y_stride = qd, .pos = m->d_pos, .cos_t = m->cos_t, .sin_t = m->sin_t,
            .kc = m->kc + l * m->kv_layer, .vc = m->vc + l * m->kv_layer, .nh = c->n_heads, .nkv = c->n_kv_heads,
            .hd = c->head_dim, .max_seq = m->max_seq, .epi_early = pdl, .part = m->gemv_part, .counter = m->gemv_counter});
        attention(m, pdl, l, m->qkv, qd, NULL, m->d_pos, B, 1, 0);
        gemv(m, pdl, P_O, l, EPI_RESIDUAL, &L->wo, (GemvArgs){
            .N = dim, .K = qd, .x = m->attn, .x_stride = qd, .B = B, .y = m->hidden, .y_stride = dim,
            .epi_early = pdl, .part = m->gemv_part, .counter = m->gemv_counter});
        if (!prologue) k_rmsnorm(m->st, pdl, l, m->hidden, L->ffn_norm, m->xn, B, dim, eps);
        gemv(m, pdl, P_GATE_UP, l, EPI_SILU_MUL, &L->wgu, (GemvArgs){
            .N = 2 * H, .K = dim, .x = normed, .x_stride = dim, .B = B, .norm_w = prologue ? L->ffn_norm : NULL,
            .eps = eps, .y = m->act, .y_stride = H, .epi_early = pdl, .part = m->gemv_part, .counter = m->gemv_counter});
        gemv(m, pdl, P_DOWN, l, EPI_RESIDUAL, &L->wdown, (GemvArgs){
            .N = dim, .K = H, .x = m->act, .x_stride = H, .B = B, .y = m->hidden, .y_stride = dim,
            .epi_early = pdl, .part = m->gemv_part, .counter = m->gemv_counter});
    }
    if (!prologue) k_rmsnorm(m->st, pdl, -1, m->hidden, m->w.final_norm, m->xn, B, dim, eps);
    gemv(m, pdl, P_LM_HEAD, -1, EPI_STORE, &m->w.lm_head, (GemvArgs){
        .N = c->vocab, .K = dim, .x = normed, .x_stride = dim, .B = B, .norm_w = prologue ? m->w.final_norm : NULL,
        .eps = eps, .y = m->logits, .y_stride = c->vocab, .epi_early = pdl, .part = m->gemv_part,
        .counter = m->gemv_counter});
    k_argmax(m->st, pdl, m->logits, B, c->vocab, m->d_tok, m->d_pos, 1);
}

/* ---- CUDA graphs: capture (records, runs nothing) and counts ---- */
static cudaGraph_t capture(GpuModel *m, int eager, int B, StepCounts *k) {
    LaunchState saved = g_launch;
    cudaGraph_t g;
    g_launch.capturing = 1;
    CUDA_CHECK(cudaStreamBeginCapture(m->st, cudaStreamCaptureModeRelaxed));
    if (eager) {                        /* and held against its table (gpu_eager.cu) */
        const int cap = 2 * eager_ops_per_pass(m->c.n_layers);   /* room for int8's dequantize kernels */
        OpRecord *rec = (OpRecord *)xmalloc(sizeof(OpRecord) * cap);
        launch_record(rec, cap);
        step_eager(m, B);
        const int n = launch_record_stop();
        eager_check(m, rec, n < cap ? n : cap);
        free(rec);
    } else
        step_fused(m, B);
    CUDA_CHECK(cudaStreamEndCapture(m->st, &g));
    k->kernels = (int)(g_launch.ops - saved.ops);
    k->gemms = (int)(g_launch.gemms - saved.gemms);
    k->weight_bytes = g_launch.weight_bytes - saved.weight_bytes;
    /* nothing was launched from the host: keep the counters as they were (the tags go on) */
    g_launch.ops = saved.ops, g_launch.gemms = saved.gemms, g_launch.capturing = saved.capturing;
    g_launch.weight_bytes = saved.weight_bytes;
    memcpy(g_launch.per_part, saved.per_part, sizeof saved.per_part);
    return g;
}

static cudaGraphExec_t graph_for(GpuModel *m, Mode mode, int B) {
    int gi = mode == MODE_GRAPH_EAGER;
    if (!m->graph[gi][B]) {
        StepCounts k;
        cudaGraph_t g = capture(m, gi, B, &k);
        CUDA_CHECK(cudaGraphInstantiate(&m->graph[gi][B], g, 0));
        CUDA_CHECK(cudaGraphDestroy(g));
        k.host_launches = 1;
        m->counts[mode][B] = k;
    }
    return m->graph[gi][B];
}

StepCounts gpu_step_counts(GpuModel *m, Mode mode) {
    int B = m->batch > 0 ? m->batch : 1;
    if (mode == MODE_GRAPH || mode == MODE_GRAPH_EAGER) graph_for(m, mode, B);
    else if (!m->counts[mode][B].kernels) {
        StepCounts k;
        CUDA_CHECK(cudaGraphDestroy(capture(m, mode == MODE_EAGER, B, &k)));
        k.host_launches = k.kernels;
        if (mode == MODE_PERSISTENT) k.kernels = k.host_launches = 1;  /* the fused step's linear layers, in one kernel */
        m->counts[mode][B] = k;
    }
    return m->counts[mode][B];
}

/* ---- the public steps ---- */
const char *gpu_mode_refusal(GpuModel *m, Mode mode, int batch) {
    return mode == MODE_PERSISTENT ? persist_refusal(m, batch) : NULL;   /* the week's four modes run everywhere */
}

void gpu_decode_step(GpuModel *m, Mode mode) {
    int B = m->batch;
    if (B < 1) die("gpu_decode_step: no prompt yet; call gpu_prefill first");
    for (int r = 0; r < B; r++)
        if (m->h_pos[r] >= m->max_seq)
            die("gpu_decode_step: row %d has filled its KV cache of %d positions; open the model with a larger "
                "max_seq", r, m->max_seq);
    const char *no = gpu_mode_refusal(m, mode, B);
    if (no) die("%s", no);
    if (mode == MODE_EAGER) step_eager(m, B);
    else if (mode == MODE_FUSED) step_fused(m, B);
    else if (mode == MODE_PERSISTENT) step_persistent(m, B);
    else {   /* graph: step_fused's kernels, graph_eager: step_eager's, as capture() recorded them */
        cudaGraphExec_t g = graph_for(m, mode, B);
        op_begin(P_OTHER, -1, "graph_launch");
        CUDA_CHECK(cudaGraphLaunch(g, m->st));
        op_end();
    }
    for (int r = 0; r < B; r++) m->h_pos[r]++;
}

void gpu_prefill_rows(GpuModel *m, Mode mode, const int *ids, const int *lens, int batch, float *logits_host) {
    const Config *c = &m->c;
    if (batch < 1 || batch > m->max_batch)
        die("gpu_prefill: batch %d is outside 1..%d (the model was opened with max_batch %d)", batch, m->max_batch,
            m->max_batch);
    int T = 0;
    for (int r = 0; r < batch; r++) {
        if (lens[r] < 1 || lens[r] >= m->max_seq)
            die("gpu_prefill: row %d's prompt has %d tokens; the KV cache holds %d positions (max_seq), so 1..%d fit",
                r, lens[r], m->max_seq, m->max_seq - 1);
        T += lens[r];
    }
    /* rows one after another, each in chunks of PREFILL_CHUNK tokens: a row's numbers are
     * then the same in any batch (a GEMM's rounding can change with its number of rows) */
    int *row = (int *)xmalloc(sizeof(int) * T), *pos = (int *)xmalloc(sizeof(int) * T);
    for (int r = 0, t = 0; r < batch; r++) {
        for (int i = 0; i < lens[r]; i++, t++) {
            if (ids[t] < 0 || ids[t] >= c->vocab)
                die("gpu_prefill: token id %d (row %d) is outside the vocabulary 0..%d", ids[t], r, c->vocab - 1);
            row[t] = r, pos[t] = i;
        }
        m->h_pos[r] = lens[r];
    }
    CUDA_CHECK(cudaMemcpyAsync(m->d_ids, ids, sizeof(int) * T, cudaMemcpyHostToDevice, m->st));
    CUDA_CHECK(cudaMemcpyAsync(m->d_row, row, sizeof(int) * T, cudaMemcpyHostToDevice, m->st));
    CUDA_CHECK(cudaMemcpyAsync(m->d_tpos, pos, sizeof(int) * T, cudaMemcpyHostToDevice, m->st));
    CUDA_CHECK(cudaMemcpyAsync(m->d_pos, lens, sizeof(int) * batch, cudaMemcpyHostToDevice, m->st));
    half *lh = logits_host ? (half *)xmalloc(sizeof(half) * PREFILL_CHUNK * c->vocab) : NULL;
    const int eager = mode == MODE_EAGER || mode == MODE_GRAPH_EAGER;
    for (int r = 0, off = 0; r < batch; off += lens[r], r++)
        for (int c0 = 0; c0 < lens[r]; c0 += PREFILL_CHUNK) {
            const int n = lens[r] - c0 < PREFILL_CHUNK ? lens[r] - c0 : PREFILL_CHUNK, t0 = off + c0;
            if (eager)                                /* PyTorch's ops, lm_head and argmax for the last token */
                prefill_eager(m, m->d_ids + t0, m->d_row + t0, m->d_tpos + t0, n, c0 + n == lens[r], lh != NULL,
                              m->d_tok + r);
            else {
                forward_tokens(m, m->d_ids + t0, m->d_row + t0, m->d_tpos + t0, n, 1);
                if (c0 + n == lens[r])                /* the row's last token, normed, into xlast */
                    k_rmsnorm(m->st, 0, -1, m->hidden + (long long)(n - 1) * c->dim, m->w.final_norm,
                              m->xlast + (long long)r * c->dim, 1, c->dim, c->norm_eps);
                if (lh) {                             /* the logits of every prompt position */
                    k_rmsnorm(m->st, 0, -1, m->hidden, m->w.final_norm, m->xn, n, c->dim, c->norm_eps);
                    linear(m, P_LM_HEAD, -1, "lm_head", m->xn, n, c->dim, &m->w.lm_head, c->vocab, m->logits, 0.f);
                }
            }
            if (lh) {
                CUDA_CHECK(cudaMemcpyAsync(lh, m->logits, sizeof(half) * n * c->vocab, cudaMemcpyDeviceToHost, m->st));
                CUDA_CHECK(cudaStreamSynchronize(m->st));
                for (long long i = 0; i < (long long)n * c->vocab; i++)
                    logits_host[(long long)t0 * c->vocab + i] = half_to_float(((const uint16_t *)lh)[i]);
            }
        }
    for (int r0 = 0; !eager && r0 < batch; r0 += GEMV_MAX_ROWS) {  /* lm_head of the last tokens: the batch-invariant GEMV */
        gemv(m, 0, P_LM_HEAD, -1, EPI_STORE, &m->w.lm_head, (GemvArgs){
            .N = c->vocab, .K = c->dim, .x = m->xlast + (long long)r0 * c->dim, .x_stride = c->dim,
            .B = batch - r0 < GEMV_MAX_ROWS ? batch - r0 : GEMV_MAX_ROWS, .y = m->logits + (long long)r0 * c->vocab,
            .y_stride = c->vocab});
    }
    if (!eager) k_argmax(m->st, 0, m->logits, batch, c->vocab, m->d_tok, NULL, 0);
    m->batch = batch;
    free(lh);
    free(row), free(pos);
}

void gpu_prefill(GpuModel *m, Mode mode, const int *ids, int n, int batch, float *logits_host) {
    if (batch < 1 || n < 1) die("gpu_prefill: needs at least one row and one token (got batch %d, %d tokens)", batch, n);
    int *all = (int *)xmalloc(sizeof(int) * n * batch), *lens = (int *)xmalloc(sizeof(int) * batch);
    for (int r = 0; r < batch; r++) memcpy(all + r * n, ids, sizeof(int) * n), lens[r] = n;
    gpu_prefill_rows(m, mode, all, lens, batch, logits_host);
    free(all), free(lens);
}

void gpu_last_tokens(GpuModel *m, int *tokens) {
    CUDA_CHECK(cudaMemcpyAsync(m->h_tok, m->d_tok, sizeof(int) * m->batch, cudaMemcpyDeviceToHost, m->st));
    CUDA_CHECK(cudaStreamSynchronize(m->st));
    memcpy(tokens, m->h_tok, sizeof(int) * m->batch);
}

void gpu_last_logits(GpuModel *m, float *logits) {
    const long long n = (long long)m->batch * m->c.vocab;
    uint16_t *h = (uint16_t *)xmalloc(sizeof(uint16_t) * n);
    CUDA_CHECK(cudaMemcpyAsync(h, m->logits, sizeof(uint16_t) * n, cudaMemcpyDeviceToHost, m->st));
    CUDA_CHECK(cudaStreamSynchronize(m->st));
    for (long long i = 0; i < n; i++) logits[i] = half_to_float(h[i]);
    free(h);
}

GenTiming gpu_generate(GpuModel *m, const int *ids, int n, int batch, int n_new, Mode mode, int *out,
                       TokenFn on_token, void *ctx) {
    GenTiming t;
    memset(&t, 0, sizeof t);
    if (n + n_new - 1 > m->max_seq)
        die("gpu_generate: %d prompt + %d new tokens need %d positions; the KV cache has %d (max_seq)", n, n_new,
            n + n_new - 1, m->max_seq);
    if (mode == MODE_GRAPH || mode == MODE_GRAPH_EAGER) {
        if (batch < 1 || batch > m->max_batch) die("gpu_generate: batch %d is outside 1..%d", batch, m->max_batch);
        graph_for(m, mode, batch);        /* captured before the request, like a warmed-up server */
    }
    int *tok = (int *)xmalloc(sizeof(int) * batch);
    double t0 = now_ms();
    gpu_prefill(m, mode, ids, n, batch, NULL);
    gpu_last_tokens(m, tok);
    t.ttft_ms = now_ms() - t0;
    for (int b = 0; b < batch; b++) out[b * n_new] = tok[b];
    if (on_token) on_token(0, tok, t.ttft_ms, ctx);
    for (int i = 1; i < n_new; i++) {
        double s = now_ms();
        gpu_decode_step(m, mode);
        gpu_last_tokens(m, tok);
        double e = now_ms();
        if (t.n_steps < (int)(sizeof t.step_ms / sizeof t.step_ms[0])) t.step_ms[t.n_steps++] = e - s;
        for (int b = 0; b < batch; b++) out[b * n_new + i] = tok[b];
        if (on_token) on_token(i, tok, e - t0, ctx);
    }
    t.total_ms = now_ms() - t0;
    free(tok);
    return t;
}

/* ---- open / free ---- */
void *dalloc(size_t bytes) {
    void *p;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
}

GpuModel *gpu_model_open(const GpuModelOpts *o) {
    GpuModel *m = (GpuModel *)xcalloc(1, sizeof *m);
    Config *c = &m->c;
    if (o->model_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/config.json", o->model_dir);
        config_load(c, path);
    } else if (o->config) *c = *o->config;
    else config_tinyllama(c);
    m->max_batch = o->max_batch > 0 ? o->max_batch : 1;
    m->max_seq = o->max_seq > 0 ? o->max_seq : c->max_seq;
    m->quant = o->quant;
    if (m->quant < 0 || m->quant >= QUANT_COUNT) die("gpu_model_open: quant %d is not fp16, int8 or int8_unfused", (int)m->quant);
    if (m->max_batch > MODEL_MAX_BATCH)
        die("max_batch %d: this kit captures graphs for at most %d rows", m->max_batch, MODEL_MAX_BATCH);
    if (!attn_supported(c->n_heads, c->n_kv_heads, c->head_dim))
        die("config: %d heads / %d kv heads of head_dim %d are not supported (head_dim 16/32/64/128, at most 8 "
            "query heads per kv head)", c->n_heads, c->n_kv_heads, c->head_dim);
    if (c->dim % 8 || c->ffn_dim % 8 || c->head_dim % 16)
        die("config: hidden_size %d and intermediate_size %d must be multiples of 8 and head_dim %d of 16 for "
            "the fp16 kernels", c->dim, c->ffn_dim, c->head_dim);
    m->tok_cap = m->max_batch > PREFILL_CHUNK ? m->max_batch : PREFILL_CHUNK;
    gpu_start();                               /* first: no GPU is one sentence, not a failed CUDA call */
    m->sms = gpu_sm_count();
    m->pdl = gpu_sm90_paths() && !getenv("KIT_NO_PDL");
    const int qd = c->n_heads * c->head_dim, kvd = c->n_kv_heads * c->head_dim, H = c->ffn_dim, T = m->tok_cap;
    const long long qkvd = qd + 2 * kvd;
    m->kv_layer = (long long)m->max_batch * kvd * m->max_seq;
    double kv_bytes = 2.0 * c->n_layers * m->kv_layer * sizeof(half);
    int widest = c->vocab > 2 * H ? c->vocab : 2 * H;          /* the widest W a decode GEMV reads */
    if (qkvd > widest) widest = (int)qkvd;
    const long long gemv_floats = m->max_batch > GEMV_NORM_ROWS ? gemv_part_floats(widest) : 0;   /* the split GEMV's */
    EagerBufs sizing;
    const size_t eager_bytes = eager_buffers(&sizing, NULL, c, T);
    double scratch = (double)T * (2 * c->dim + qkvd + qd + 3 * H + c->vocab) * sizeof(half) + gemv_floats * 4.0 +
                     (double)eager_bytes + 64e6;
    size_t free_b, total_b;
    gpu_mem_info(&free_b, &total_b);
    /* int8: the fp16 and the int8 weights side by side while it quantizes, and the fp16
     * scratch a dequantized layer goes to (the widest, lm_head's) */
    const long long wscratch = m->quant != QUANT_FP16 ? (long long)widest * c->dim : 0;
    const double weights = model_weight_bytes_fp16(c) + (wscratch ? int8_weight_bytes(c) + 2.0 * wscratch : 0);
    double need = weights + kv_bytes + scratch;
    if (need > (double)free_b)
        die("the model needs %.2f GB on the GPU (weights %.2f GB%s + KV cache %.2f GB for %d rows x %d positions + "
            "scratch %.2f GB) but only %.2f GB of %.2f GB are free; use fewer rows or positions, or a larger GPU",
            need / 1e9, weights / 1e9, wscratch ? ", fp16 and int8 while it quantizes" : "", kv_bytes / 1e9,
            m->max_batch, m->max_seq, scratch / 1e9, free_b / 1e9, total_b / 1e9);

    CUDA_CHECK(cudaStreamCreateWithFlags(&m->st, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&m->cb));
    CUBLAS_CHECK(cublasSetStream(m->cb, m->st));
    m->cublas_ws = dalloc(CUBLAS_WORKSPACE_BYTES);
    CUBLAS_CHECK(cublasSetWorkspace(m->cb, m->cublas_ws, CUBLAS_WORKSPACE_BYTES));

    gpu_weights_load(&m->w, c, o->model_dir, o->seed, m->st, o->quiet);
    if (wscratch) {
        gpu_weights_quantize(&m->w, c, m->st, o->quiet);
        m->wscratch = (half *)dalloc(sizeof(half) * wscratch);
    }

    m->kc = (half *)dalloc(kv_bytes / 2);
    m->vc = (half *)dalloc(kv_bytes / 2);
    m->cos_t = (half *)dalloc(sizeof(half) * m->max_seq * c->head_dim / 2);
    m->sin_t = (half *)dalloc(sizeof(half) * m->max_seq * c->head_dim / 2);
    m->eager_block = dalloc(eager_bytes);
    eager_buffers(&m->eager, (char *)m->eager_block, c, T);
    k_rope_table(m->st, m->cos_t, m->sin_t, m->eager.inv_freq, m->max_seq, c->head_dim, c->rope_theta);
    m->d_tok = (int *)dalloc(sizeof(int) * m->max_batch);
    m->d_pos = (int *)dalloc(sizeof(int) * m->max_batch);
    CUDA_CHECK(cudaMallocHost(&m->h_tok, sizeof(int) * m->max_batch));
    m->h_pos = (int *)xcalloc(m->max_batch, sizeof(int));
    m->hidden = (half *)dalloc(sizeof(half) * T * c->dim);
    m->xn = (half *)dalloc(sizeof(half) * T * c->dim);
    m->xlast = (half *)dalloc(sizeof(half) * m->max_batch * c->dim);
    m->qkv = (half *)dalloc(sizeof(half) * T * qkvd);
    m->attn = (half *)dalloc(sizeof(half) * T * qd);
    m->gu = (half *)dalloc(sizeof(half) * T * 2 * H);
    m->act = (half *)dalloc(sizeof(half) * T * H);
    m->logits = (half *)dalloc(sizeof(half) * T * c->vocab);
    /* attention() slices: ATTN_MAX_SPLITS per (row, kv head) in a decode step; in the token
     * path only while T kv_heads < sms / 2, into at most sms / 2 / (T kv_heads) + 1 each */
    int slices = m->max_batch * c->n_kv_heads * ATTN_MAX_SPLITS;
    if (slices < m->sms) slices = m->sms;
    m->part = (float *)dalloc(sizeof(float) * attn_part_floats(slices, c->n_heads / c->n_kv_heads, c->head_dim));
    m->counter = (int *)dalloc(sizeof(int) * T * c->n_kv_heads);
    CUDA_CHECK(cudaMemsetAsync(m->counter, 0, sizeof(int) * T * c->n_kv_heads, m->st));
    if (gemv_floats) {
        m->gemv_part = (float *)dalloc(sizeof(float) * gemv_floats);
        const size_t counters = sizeof(int) * ((widest + 15) / 16);     /* one a 16-row tile */
        m->gemv_counter = (int *)dalloc(counters);
        CUDA_CHECK(cudaMemsetAsync(m->gemv_counter, 0, counters, m->st));
    }
    long long maxtok = (long long)m->max_batch * m->max_seq;
    m->d_ids = (int *)dalloc(sizeof(int) * maxtok);
    m->d_row = (int *)dalloc(sizeof(int) * maxtok);
    m->d_tpos = (int *)dalloc(sizeof(int) * maxtok);
    m->d_rowid = (int *)dalloc(sizeof(int) * m->max_batch);
    for (int r = 0; r < m->max_batch; r++) m->h_pos[r] = r;
    CUDA_CHECK(cudaMemcpyAsync(m->d_rowid, m->h_pos, sizeof(int) * m->max_batch, cudaMemcpyHostToDevice, m->st));
    CUDA_CHECK(cudaStreamSynchronize(m->st));
    memset(m->h_pos, 0, sizeof(int) * m->max_batch);
    return m;
}

void gpu_model_free(GpuModel *m) {
    if (!m) return;
    for (int g = 0; g < 2; g++)
        for (int b = 0; b <= MODEL_MAX_BATCH; b++)
            if (m->graph[g][b]) CUDA_CHECK(cudaGraphExecDestroy(m->graph[g][b]));
    void *bufs[] = {m->kc, m->vc, m->cos_t, m->sin_t, m->d_tok, m->d_pos, m->hidden, m->xn, m->xlast,
                    m->qkv, m->attn, m->gu, m->act, m->logits, m->eager_block, m->part, m->counter, m->gemv_part,
                    m->gemv_counter, m->d_ids,
                    m->d_row, m->d_tpos, m->d_rowid, m->cublas_ws, m->wscratch};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) CUDA_CHECK(cudaFree(bufs[i]));
    CUDA_CHECK(cudaFreeHost(m->h_tok));
    persist_free(m);
    gpu_weights_free(&m->w);
    CUBLAS_CHECK(cublasDestroy(m->cb));
    CUDA_CHECK(cudaStreamDestroy(m->st));
    free(m->h_pos);
    free(m);
}

const Config *gpu_model_config(const GpuModel *m) { return &m->c; }
double gpu_model_load_ms(const GpuModel *m) { return m->w.load_ms; }
long long gpu_model_weight_bytes(const GpuModel *m) { return m->w.bytes; }
Quant gpu_model_quant(const GpuModel *m) { return m->quant; }
const char *gpu_model_disk_dtype(const GpuModel *m) { return m->w.disk_dtype; }
cudaStream_t gpu_model_stream(const GpuModel *m) { return m->st; }
int gpu_model_pdl(const GpuModel *m) { return m->pdl; }
unsigned long long gpu_model_checksum(GpuModel *m) { return gpu_weights_checksum(&m->w, m->st); }

double gpu_model_time_gemv(GpuModel *m, int B, double *bytes, double *flops) {
    if (B < 1 || B > m->max_batch || B > GEMV_MAX_ROWS)
        die("gpu_model_time_gemv: %d rows; the model holds %d (and the GEMV at most %d)", B, m->max_batch, GEMV_MAX_ROWS);
    const Config *c = &m->c;
    const int prologue = B <= GEMV_NORM_ROWS, L = c->n_layers;
    const double dispatch = g_launch.dispatch_us;
    g_launch.dispatch_us = 0;
    OpRecord rec;
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double us[4];
    for (int round = 0; round < 4; round++) {           /* round 0 warms up, and records the op's cost */
        if (round == 0) launch_record(&rec, 1);
        CUDA_CHECK(cudaEventRecord(a, m->st));
        for (int l = 0; l < L; l++) {
            const LayerWeights *W = &m->w.layer[l];
            gemv(m, 0, P_GATE_UP, l, EPI_SILU_MUL, &W->wgu, (GemvArgs){
                .N = 2 * c->ffn_dim, .K = c->dim, .x = prologue ? m->hidden : m->xn, .x_stride = c->dim, .B = B,
                .norm_w = prologue ? W->ffn_norm : NULL, .eps = c->norm_eps, .y = m->act, .y_stride = c->ffn_dim,
                .part = m->gemv_part, .counter = m->gemv_counter});
            if (round == 0 && l == 0) launch_record_stop();
        }
        CUDA_CHECK(cudaEventRecord(b, m->st));
        CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        us[round] = 1e3 * ms / L;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    g_launch.dispatch_us = dispatch;
    *bytes = rec.bytes, *flops = rec.flops;
    return median_of(us + 1, 3);
}
