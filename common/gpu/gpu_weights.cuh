/* gpu_weights: every weight of the model in one fp16 allocation on the GPU, in checkpoint
 * order, so q|k|v and gate|up lie back to back: the fused kernels read them as one
 * [q;k;v] and one [gate;up] matrix, eager reads the separate matrices (views). With int8 the
 * linear layers move to an int8 allocation laid out the same way, their scales to a third. */
#ifndef KIT_GPU_WEIGHTS_CUH
#define KIT_GPU_WEIGHTS_CUH
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include "model/config.h"

/* A linear layer's weight [rows][cols]: fp16 (h), or int8 with an fp32 scale per row (q,
 * scale; h is NULL then). */
typedef struct { half *h; int8_t *q; float *scale; } LinearWeight;

typedef struct {
    half *attn_norm, *ffn_norm;
    LinearWeight wq, wk, wv, wo, wgate, wup, wdown;
    LinearWeight wqkv;          /* = wq, rows (nh + 2 nkv) hd */
    LinearWeight wgu;           /* = wgate, rows 2 ffn_dim */
} LayerWeights;

typedef struct {
    half *base;                 /* the fp16 tensors (all of them, or with int8 the embedding and norms) */
    long long bytes;            /* the weights' bytes as stored (fp16: parameters x 2; int8: int8_weight_bytes) */
    long long halfs;            /* the fp16 allocation, alignment padding included */
    int8_t *q8;                 /* int8: every linear weight, in checkpoint order */
    float *scales;              /* int8: one scale per row of each */
    long long q8_bytes, n_scales;
    half *embed, *final_norm;
    LinearWeight lm_head;       /* fp16: = embed when tied */
    LayerWeights *layer;
    double load_ms;
    const char *disk_dtype;     /* "bf16", "fp16", "fp32", "synthetic" */
} GpuWeights;

/* From model_dir (NULL: synthetic from seed), converted to fp16 on the GPU; prints one
 * line unless quiet. */
void gpu_weights_load(GpuWeights *w, const Config *c, const char *model_dir, unsigned long long seed,
                      cudaStream_t s, int quiet);
/* int8 weight-only, on the GPU, from the fp16 weights just loaded: every linear layer (lm_head
 * too, a copy when tied) to int8 with a scale per row (k_quantize_int8); then the fp16 block
 * shrinks to what stays fp16 (embedding, norms). Prints one line unless quiet. */
void gpu_weights_quantize(GpuWeights *w, const Config *c, cudaStream_t s, int quiet);
void gpu_weights_free(GpuWeights *w);
/* An order-free hash of every weight (fp16, and int8 with its scales): equal weights, equal checksum. */
unsigned long long gpu_weights_checksum(const GpuWeights *w, cudaStream_t s);

#endif
