/* gpu_weights: the model's weights on the GPU in fp16, from a checkpoint or synthetic. */
#include <stdio.h>
#include <string.h>
#include "gpu.h"
#include "gpu_weights.cuh"
#include "kernels.cuh"
#include "model.h"
#include "safetensors.h"

/* Offsets (in halfs) of each tensor in one allocation, checkpoint order. k, v and up follow
 * q, k and gate with no padding, so [q;k;v] and [gate;up] are contiguous matrices. */
static long long layout(const ModelTensor *t, int n, long long *off) {
    long long at = 0;
    for (int i = 0; i < n; i++) {
        TensorKind k = t[i].kind;
        if (k != T_K && k != T_V && k != T_UP) at = (at + 63) / 64 * 64;    /* 128-byte aligned */
        off[i] = at;
        at += t[i].rows * (t[i].cols ? t[i].cols : 1);
    }
    return at;
}

static void point(GpuWeights *w, const ModelTensor *t, int n, const long long *off, int tied) {
    for (int i = 0; i < n; i++) {
        half *p = w->base + off[i];
        LayerWeights *L = t[i].layer >= 0 ? &w->layer[t[i].layer] : NULL;
        switch (t[i].kind) {
        case T_EMBED: w->embed = p; break;
        case T_FINAL_NORM: w->final_norm = p; break;
        case T_LM_HEAD: w->lm_head = p; break;
        case T_ATTN_NORM: L->attn_norm = p; break;
        case T_Q: L->wq = L->wqkv = p; break;
        case T_K: L->wk = p; break;
        case T_V: L->wv = p; break;
        case T_O: L->wo = p; break;
        case T_FFN_NORM: L->ffn_norm = p; break;
        case T_GATE: L->wgate = L->wgu = p; break;
        case T_UP: L->wup = p; break;
        case T_DOWN: L->wdown = p; break;
        default: break;
        }
    }
    if (tied) w->lm_head = w->embed;
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
    long long halfs = layout(t, n, off);
    w->layer = (LayerWeights *)xcalloc(c->n_layers, sizeof(LayerWeights));
    w->bytes = model_weight_bytes_fp16(c);

    double t0 = now_ms();
    CUDA_CHECK(cudaMalloc(&w->base, halfs * sizeof(half)));
    CUDA_CHECK(cudaMemsetAsync(w->base, 0, halfs * sizeof(half), s));    /* the padding too */
    w->halfs = halfs;
    point(w, t, n, off, c->tied);
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

void gpu_weights_free(GpuWeights *w) {
    if (w->base) CUDA_CHECK(cudaFree(w->base));
    free(w->layer);
    memset(w, 0, sizeof *w);
}

unsigned long long gpu_weights_checksum(const GpuWeights *w, cudaStream_t s) {
    unsigned long long *d, sum;
    CUDA_CHECK(cudaMalloc(&d, sizeof sum));
    CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof sum, s));
    k_checksum(s, w->base, w->halfs, d);
    CUDA_CHECK(cudaMemcpyAsync(&sum, d, sizeof sum, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaFree(d));
    return sum;
}
