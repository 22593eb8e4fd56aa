/* gpu_weights: the model's weights on the GPU in fp16, from a checkpoint or synthetic. */
#include <stdio.h>
#include <string.h>
#include "gpu/gpu.h"
#include "gpu/gpu_weights.cuh"
#include "kernels/kernels.cuh"
#include "model/model.h"
#include "model/safetensors.h"
#include "model/theory.h"

/* the linear layers' weight matrices, the ones int8 quantizes */
static int is_linear(TensorKind k) {
    return k == T_Q || k == T_K || k == T_V || k == T_O || k == T_GATE || k == T_UP || k == T_DOWN || k == T_LM_HEAD;
}
/* and where each one's pointers go; NULL for the other tensors */
static LinearWeight *linear_of(GpuWeights *w, TensorKind k, int layer) {
    LayerWeights *L = layer >= 0 ? &w->layer[layer] : NULL;
    switch (k) {
    case T_Q: return &L->wq;
    case T_K: return &L->wk;
    case T_V: return &L->wv;
    case T_O: return &L->wo;
    case T_GATE: return &L->wgate;
    case T_UP: return &L->wup;
    case T_DOWN: return &L->wdown;
    case T_LM_HEAD: return &w->lm_head;
    default: return NULL;
    }
}

enum { PICK_ALL, PICK_FP16, PICK_LINEAR };   /* which tensors a layout holds: all, all but the linear ones, those */

/* Offsets (in elements of `size` bytes) of the tensors `pick` selects in one allocation,
 * checkpoint order (the others get -1). Each starts 128-byte aligned, except that k, v and up
 * follow q, k and gate with no padding, so [q;k;v] and [gate;up] are contiguous matrices.
 * per_row: a tensor takes one element per row (the int8 weights' scales). Returns the elements. */
static long long layout(const ModelTensor *t, int n, long long *off, int pick, int size, int per_row) {
    long long at = 0;
    const int align = 128 / size;
    for (int i = 0; i < n; i++) {
        TensorKind k = t[i].kind;
        const int lin = is_linear(k);
        off[i] = -1;
        if ((pick == PICK_FP16 && lin) || (pick == PICK_LINEAR && !lin)) continue;
        if (k != T_K && k != T_V && k != T_UP) at = (at + align - 1) / align * align;
        off[i] = at;
        at += per_row ? t[i].rows : t[i].rows * (t[i].cols ? t[i].cols : 1);
    }
    return at;
}

/* Every tensor's pointer: a linear one at q8 + off8[i] with its scales at scales + offs[i] when
 * it is int8 (off8 given and >= 0), else each at base + off16[i]. [q;k;v] and [gate;up] are
 * views of q and gate; a tied lm_head that is not int8 is the embedding. */
static void point(GpuWeights *w, const Config *c, const ModelTensor *t, int n, const long long *off16,
                  const long long *off8, const long long *offs) {
    for (int i = 0; i < n; i++) {
        LayerWeights *L = t[i].layer >= 0 ? &w->layer[t[i].layer] : NULL;
        LinearWeight *lw = linear_of(w, t[i].kind, t[i].layer);
        if (lw) {
            if (off8 && off8[i] >= 0) *lw = (LinearWeight){NULL, w->q8 + off8[i], w->scales + offs[i]};
            else *lw = (LinearWeight){w->base + off16[i], NULL, NULL};
            continue;
        }
        half *p = w->base + off16[i];
        switch (t[i].kind) {
        case T_EMBED: w->embed = p; break;
        case T_FINAL_NORM: w->final_norm = p; break;
        case T_ATTN_NORM: L->attn_norm = p; break;
        case T_FFN_NORM: L->ffn_norm = p; break;
        default: break;
        }
    }
    for (int l = 0; l < c->n_layers; l++) w->layer[l].wqkv = w->layer[l].wq, w->layer[l].wgu = w->layer[l].wgate;
    if (c->tied && !w->lm_head.q) w->lm_head = (LinearWeight){w->embed, NULL, NULL};
}

static const char *dtype_lower(Dtype d) { return d == DT_F16 ? "fp16" : d == DT_BF16 ? "bf16" : "fp32"; }

/* Raw checkpoint bytes -> pinned staging (CPU copy) -> GPU (async copy) -> fp16 (convert
 * kernel), two staging buffers in turn so the CPU fills one while the GPU drains the other. */
static long long upload(GpuWeights *w, const ModelTensor *t, int n, const long long *off, const SafeTensors *st,
                        cudaStream_t s) {
    enum { CHUNK = 32 << 20 };
    void *pinned[2], *raw[2];
    cudaEvent_t done[2];
    for (int b = 0; b < 2; b++) {
        CUDA_CHECK(cudaMallocHost(&pinned[b], CHUNK));
        CUDA_CHECK(cudaMalloc(&raw[b], CHUNK));
        CUDA_CHECK(cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(done[b], s));
    }
    long long disk = 0;
    int slot = 0;
    for (int i = 0; i < n; i++) {
        const StTensor *x = st_find(st, t[i].name);
        int es = dtype_size(x->dtype);
        for (size_t at = 0; at < x->nbytes; at += CHUNK, slot ^= 1) {
            size_t len = x->nbytes - at < (size_t)CHUNK ? x->nbytes - at : (size_t)CHUNK;
            half *dst = w->base + off[i] + at / es;
            CUDA_CHECK(cudaEventSynchronize(done[slot]));
            memcpy(pinned[slot], (const char *)x->data + at, len);
            if (x->dtype == DT_F16)
                CUDA_CHECK(cudaMemcpyAsync(dst, pinned[slot], len, cudaMemcpyHostToDevice, s));
            else {
                CUDA_CHECK(cudaMemcpyAsync(raw[slot], pinned[slot], len, cudaMemcpyHostToDevice, s));
                k_convert(s, dst, raw[slot], (long long)(len / es), x->dtype == DT_F32);
            }
            CUDA_CHECK(cudaEventRecord(done[slot], s));
        }
        disk += (long long)x->nbytes;
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < 2; b++) {
        CUDA_CHECK(cudaFreeHost(pinned[b]));
        CUDA_CHECK(cudaFree(raw[b]));
        CUDA_CHECK(cudaEventDestroy(done[b]));
    }
    return disk;
}

void gpu_weights_load(GpuWeights *w, const Config *c, const char *model_dir, unsigned long long seed,
                      cudaStream_t s, int quiet) {
    memset(w, 0, sizeof *w);
    int n = model_tensors(c, NULL);
    ModelTensor *t = (ModelTensor *)xmalloc(sizeof(ModelTensor) * n);
    long long *off = (long long *)xmalloc(sizeof(long long) * n);
    model_tensors(c, t);
    long long halfs = layout(t, n, off, PICK_ALL, sizeof(half), 0);
    w->layer = (LayerWeights *)xcalloc(c->n_layers, sizeof(LayerWeights));
    w->bytes = model_weight_bytes_fp16(c);

    double t0 = now_ms();
    CUDA_CHECK(cudaMalloc(&w->base, halfs * sizeof(half)));
    CUDA_CHECK(cudaMemsetAsync(w->base, 0, halfs * sizeof(half), s));    /* the padding too */
    w->halfs = halfs;
    point(w, c, t, n, off, NULL, NULL);
    if (!model_dir) {
        for (int i = 0; i < n; i++) {
            TensorKind k = t[i].kind;
            int is_norm = k == T_ATTN_NORM || k == T_FFN_NORM || k == T_FINAL_NORM;
            k_synth_fill(s, w->base + off[i], t[i].rows * (t[i].cols ? t[i].cols : 1), seed, i, is_norm);
        }
        CUDA_CHECK(cudaStreamSynchronize(s));
        w->load_ms = now_ms() - t0;
        w->disk_dtype = "synthetic";
        if (!quiet)
            printf("load_bytes=%lld load_ms=%.1f dtype=synthetic->fp16 (seed %llu, generated on the GPU: "
                   "timings are real, the text is meaningless)\n", w->bytes, w->load_ms, seed);
    } else {
        SafeTensors st;
        st_open(&st, model_dir);
        model_check(c, &st);
        long long disk = upload(w, t, n, off, &st, s);
        w->load_ms = now_ms() - t0;
        w->disk_dtype = dtype_lower(st_find(&st, t[0].name)->dtype);
        if (!quiet)
            printf("load_bytes=%lld load_ms=%.1f load_gbs=%.2f dtype=%s->fp16 (%s on disk, converted on the GPU)\n",
                   disk, w->load_ms, disk / w->load_ms / 1e6, w->disk_dtype, model_dir);
        st_close(&st);
    }
    free(t);
    free(off);
}

/* The int8 tensors (the linear layers, and a tied lm_head as a copy of the embedding) go to
 * an int8 block laid out like the fp16 one, their scales to a float block; the quantize kernel
 * reads them from the fp16 weights where the load put them. What stays fp16 then moves to a
 * block of its own, and the full fp16 block is freed: an int8 model holds 1.17 GB, not 2.2. */
void gpu_weights_quantize(GpuWeights *w, const Config *c, cudaStream_t s, int quiet) {
    const double t0 = now_ms();
    const int n = model_tensors(c, NULL), nt = n + (c->tied ? 1 : 0);
    ModelTensor *t = (ModelTensor *)xmalloc(sizeof(ModelTensor) * (n + 1));
    long long *off = (long long *)xmalloc(4 * sizeof(long long) * (n + 1));
    long long *off8 = off + n + 1, *offs = off8 + n + 1, *off16 = offs + n + 1;
    model_tensors(c, t);
    layout(t, n, off, PICK_ALL, sizeof(half), 0);              /* where gpu_weights_load put them */
    if (c->tied) {                                              /* lm_head: a quantized copy of the embedding */
        t[n] = t[0], t[n].kind = T_LM_HEAD, off[n] = off[0];
        snprintf(t[n].name, sizeof t[n].name, "lm_head (tied)");
    }
    const long long bytes8 = layout(t, nt, off8, PICK_LINEAR, 1, 0), nscales = layout(t, nt, offs, PICK_LINEAR, 4, 1);
    CUDA_CHECK(cudaMalloc(&w->q8, bytes8));
    CUDA_CHECK(cudaMalloc(&w->scales, nscales * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(w->q8, 0, bytes8, s));          /* the padding too (the checksum reads it) */
    w->q8_bytes = bytes8, w->n_scales = nscales;
    for (int i = 0; i < nt; i++)
        if (off8[i] >= 0)
            k_quantize_int8(s, w->base + off[i], w->q8 + off8[i], w->scales + offs[i], (int)t[i].rows, (int)t[i].cols);
    const long long halfs = layout(t, nt, off16, PICK_FP16, sizeof(half), 0);
    half *base;
    CUDA_CHECK(cudaMalloc(&base, halfs * sizeof(half)));
    CUDA_CHECK(cudaMemsetAsync(base, 0, halfs * sizeof(half), s));
    for (int i = 0; i < nt; i++)
        if (off16[i] >= 0)
            CUDA_CHECK(cudaMemcpyAsync(base + off16[i], w->base + off[i], sizeof(half) * t[i].rows * (t[i].cols ? t[i].cols : 1),
                                       cudaMemcpyDeviceToDevice, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaFree(w->base));
    w->base = base, w->halfs = halfs;
    point(w, c, t, nt, off16, off8, offs);
    w->bytes = (long long)int8_weight_bytes(c);
    if (!quiet)
        printf("quantize_ms=%.1f int8_bytes=%lld (fp16 %lld): linear layers int8 with a scale per row, embedding and "
               "norms fp16 (weight-only, quantized on the GPU)\n", now_ms() - t0, w->bytes, model_weight_bytes_fp16(c));
    free(t);
    free(off);
}

void gpu_weights_free(GpuWeights *w) {
    if (w->base) CUDA_CHECK(cudaFree(w->base));
    if (w->q8) CUDA_CHECK(cudaFree(w->q8));
    if (w->scales) CUDA_CHECK(cudaFree(w->scales));
    free(w->layer);
    memset(w, 0, sizeof *w);
}

unsigned long long gpu_weights_checksum(const GpuWeights *w, cudaStream_t s) {
    unsigned long long *d, sum;
    CUDA_CHECK(cudaMalloc(&d, sizeof sum));
    CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof sum, s));
    k_checksum(s, w->base, w->halfs, d);
    if (w->q8) {                        /* int8: its weights and scales too, read as halfs */
        k_checksum(s, (const half *)w->q8, w->q8_bytes / 2, d);
        k_checksum(s, (const half *)w->scales, w->n_scales * 2, d);
    }
    CUDA_CHECK(cudaMemcpyAsync(&sum, d, sizeof sum, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaFree(d));
    return sum;
}
