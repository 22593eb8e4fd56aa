/* gpu_persistent: persistent mode's host side, beyond the week (the kernel and why it is built
 * as it is: kernels/persistent.cu). The whole decode step is one kernel with one block on every
 * SM; this file says whether it can run here (persist_refusal), gives the kernel the model's
 * buffers (persist_args), launches it (step_persistent), and reads its in-kernel trace
 * (gpu_persistent_trace). gpu_model.cu calls the first two from gpu_mode_refusal and
 * gpu_decode_step. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/gpu.h"
#include "gpu/gpu_model_internal.h"

enum { PERSIST_OPS_PER_LAYER = 5 };   /* qkv, attention, o, gate/up, down: the trace's ops of a layer */

struct PersistState {
    PersistLayer *layers;           /* each layer's weight pointers, on the GPU: [n_layers] */
    uint32_t *counters;             /* the tiles' readiness counters (persist_counter_count), zeroed once */
    float *best_v;                  /* lm_head's per-tile maxima: [PERSIST_MAX_ROWS][ceil(vocab / 16)] */
    int *best_i;                    /* and their token ids, the same shape */
    uint64_t *trace;                /* [blocks][trace_ops][PERSIST_TRACE_SLOTS] while gpu_persistent_trace runs */
    uint32_t epoch, rows_sum;       /* steps run, and the rows of those steps: the counters' targets */
    int smem[PERSIST_MAX_ROWS + 1]; /* a block's shared memory at B rows, once persist_refusal said yes */
    int blocks;                     /* one an SM */
    char why[PERSIST_MAX_ROWS + 1][256];   /* per B: "" until asked; then "ok" or the refusal */
};

/* the state, made at the first question about persistent mode; its GPU buffers come with the first step */
static PersistState *state(GpuModel *m) {
    if (!m->ps) m->ps = (PersistState *)xcalloc(1, sizeof *m->ps);
    return m->ps;
}

void persist_free(GpuModel *m) {
    if (!m->ps) return;
    void *bufs[] = {m->ps->layers, m->ps->counters, m->ps->best_v, m->ps->best_i, m->ps->trace};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) CUDA_CHECK(cudaFree(bufs[i]));
    free(m->ps);
    m->ps = NULL;
}

static PersistArgs persist_args(GpuModel *m, int B) {
    const Config *c = &m->c;
    PersistArgs a = {};
    a.layers = m->ps->layers, a.n_layers = c->n_layers, a.dim = c->dim, a.qd = c->n_heads * c->head_dim;
    a.kvd = c->n_kv_heads * c->head_dim, a.ffn_dim = c->ffn_dim, a.vocab = c->vocab, a.nh = c->n_heads;
    a.nkv = c->n_kv_heads, a.hd = c->head_dim, a.max_seq = m->max_seq, a.B = B, a.eps = c->norm_eps;
    a.kv_layer = m->kv_layer, a.embed = m->w.embed, a.final_norm = m->w.final_norm, a.lm_head = m->w.lm_head.h;
    a.cos_t = m->cos_t, a.sin_t = m->sin_t, a.h = m->hidden, a.q = m->qkv, a.attn = m->attn, a.act = m->act;
    a.logits = m->logits, a.kc = m->kc, a.vc = m->vc, a.tok = m->d_tok, a.pos = m->d_pos;
    a.counters = m->ps->counters, a.best_v = m->ps->best_v, a.best_i = m->ps->best_i;
    a.trace_ops = PERSIST_OPS_PER_LAYER * c->n_layers + 2;   /* + embed and lm_head */
    persist_layout(&a);
    return a;
}
/* why the persistent step cannot run B rows here, or NULL; asked once per B */
const char *persist_refusal(GpuModel *m, int B) {
    if (B < 1 || B > PERSIST_MAX_ROWS)
        return "persistent mode keeps each op's input rows in shared memory and runs 1 to 8 rows; larger batches "
               "run in graph mode";
    char *why = state(m)->why[B];
    if (why[0]) return strcmp(why, "ok") ? why : NULL;
    const int arch = gpu_code_arch();
    PersistArgs a = persist_args(m, B);
    const int smem = persist_layout(&a);
    if (m->quant != QUANT_FP16)
        snprintf(why, 256, "persistent mode reads fp16 weights; %s runs in the fused and graph modes", quant_name(m->quant));
    else if (!gpu_sm90_paths())
        snprintf(why, 256, "persistent mode needs an sm_90 GPU and kernels built for it (bulk copies, mbarriers); %s",
                 gpu_t4() ? "under KIT_GPU=t4 this is a T4 (sm_75)" : arch < 90 ? "these kernels were built for an older GPU"
                                                                    : "this GPU is older");
    else if (!smem)
        snprintf(why, 256, "persistent mode: two ring stages and %d rows of x do not fit in a block's %d KB of shared "
                 "memory", B, gpu_smem_optin() / 1024);
    else if (persist_blocks_per_sm(smem) < 1)
        snprintf(why, 256, "persistent mode: a block of %d threads with %d KB of shared memory does not fit on an SM, "
                 "so its blocks could not all be resident at once", PERSIST_THREADS + 32, smem / 1024);
    else snprintf(why, 256, "ok"), m->ps->smem[B] = smem;
    return strcmp(why, "ok") ? why : NULL;
}
void step_persistent(GpuModel *m, int B) {
    const Config *c = &m->c;
    if (!state(m)->layers) {
        PersistLayer *h = (PersistLayer *)xcalloc(c->n_layers, sizeof *h);
        for (int l = 0; l < c->n_layers; l++) {
            const LayerWeights *L = &m->w.layer[l];
            h[l] = (PersistLayer){L->wqkv.h, L->wo.h, L->wgu.h, L->wdown.h, L->attn_norm, L->ffn_norm};
        }
        m->ps->layers = (PersistLayer *)dalloc(sizeof *h * c->n_layers);
        CUDA_CHECK(cudaMemcpy(m->ps->layers, h, sizeof *h * c->n_layers, cudaMemcpyHostToDevice));
        free(h);
        const long long n = persist_counter_count(c->n_layers, c->n_heads, c->n_kv_heads, c->n_heads * c->head_dim,
                                                  c->ffn_dim), tiles = (c->vocab + 15) / 16;
        m->ps->counters = (uint32_t *)dalloc(sizeof(uint32_t) * n);
        CUDA_CHECK(cudaMemset(m->ps->counters, 0, sizeof(uint32_t) * n));
        m->ps->best_v = (float *)dalloc(sizeof(float) * PERSIST_MAX_ROWS * tiles);
        m->ps->best_i = (int *)dalloc(sizeof(int) * PERSIST_MAX_ROWS * tiles);
        m->ps->blocks = m->sms;         /* one an SM: persist_refusal checked that one fits */
    }
    PersistArgs a = persist_args(m, B);
    a.epoch = ++m->ps->epoch, a.rows_sum = m->ps->rows_sum += B, a.trace = m->ps->trace;
    k_persistent_step(m->st, &a, m->ps->blocks, m->ps->smem[B]);
}
int gpu_persistent_trace(GpuModel *m, PersistTrace *t) {
    const int B = m->batch;
    if (B < 1) die("gpu_persistent_trace: no prompt yet; call gpu_prefill first");
    if (persist_refusal(m, B)) return 0;
    const PersistArgs a = persist_args(m, B);
    const int ops = a.trace_ops, G = m->sms, S = PERSIST_TRACE_SLOTS;
    const size_t bytes = sizeof(uint64_t) * S * ops * G;
    if (!m->ps->trace) m->ps->trace = (uint64_t *)dalloc(bytes);
    CUDA_CHECK(cudaMemsetAsync(m->ps->trace, 0, bytes, m->st));
    gpu_decode_step(m, MODE_PERSISTENT);
    uint64_t *h = (uint64_t *)xmalloc(bytes);
    CUDA_CHECK(cudaMemcpyAsync(h, m->ps->trace, bytes, cudaMemcpyDeviceToHost, m->st));
    CUDA_CHECK(cudaStreamSynchronize(m->st));
    CUDA_CHECK(cudaFree(m->ps->trace));
    m->ps->trace = NULL;
    memset(t, 0, sizeof *t);
    static const char *names[PT_COUNT] = {"embed", "qkv", "attn", "o", "gate_up", "down", "lm_head"};
    uint64_t t0 = UINT64_MAX, t_end = 0, prev = 0;
    for (int b = 0; b < G; b++) t0 = h[(size_t)b * ops * S] < t0 ? h[(size_t)b * ops * S] : t0;
    int khz;
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    prev = t0;
    int n[PT_COUNT] = {0};
    for (int i = 0; i < ops; i++) {
        const int k = i == 0 ? PT_EMBED : i == ops - 1 ? PT_LM_HEAD : PT_QKV + (i - 1) % PERSIST_OPS_PER_LAYER;
        uint64_t done = 0;
        double wait = 0, work = 0, ring = 0, end = 0;
        int busy = 0;
        for (int b = 0; b < G; b++) {
            const uint64_t *s = h + ((size_t)b * ops + i) * S;
            if (!s[1]) continue;       /* no units of this op */
            busy++, wait += (double)(s[1] - s[0]), work += (double)(s[2] - s[1]);
            ring += s[3] / (khz * 1e-6), end += s[4] / (khz * 1e-6);
            if (s[2] > done) done = s[2];
        }
        if (!busy) continue;
        t->path_us[k] += (done - prev) / 1e3, t->wait_us[k] += wait / busy / 1e3, t->work_us[k] += work / busy / 1e3;
        t->ring_us[k] += ring / busy / 1e3, t->end_us[k] += end / busy / 1e3;
        n[k]++, prev = done, t_end = done > t_end ? done : t_end;
    }
    for (int k = 0; k < PT_COUNT; k++) {
        t->name[k] = names[k];
        if (n[k]) t->path_us[k] /= n[k], t->wait_us[k] /= n[k], t->work_us[k] /= n[k], t->ring_us[k] /= n[k], t->end_us[k] /= n[k];
    }
    t->step_us = (t_end - t0) / 1e3, t->blocks = G, t->threads = PERSIST_THREADS + 32, t->ring_stages = a.ring_stages;
    free(h);
    return 1;
}
