/* gpu_weights: every weight of the model in one fp16 allocation on the GPU, in checkpoint
 * order, so q|k|v and gate|up lie back to back: the fused kernels read them as one
 * [q;k;v] and one [gate;up] matrix, eager reads the separate matrices (views). */
#ifndef KIT_GPU_WEIGHTS_CUH
#define KIT_GPU_WEIGHTS_CUH
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "config.h"

typedef struct {
    half *attn_norm, *wq, *wk, *wv, *wo, *ffn_norm, *wgate, *wup, *wdown;
    half *wqkv;                 /* = wq, rows (nh + 2 nkv) hd */
    half *wgu;                  /* = wgate, rows 2 hidden */
} LayerWeights;

typedef struct {
    half *base;
    long long bytes;            /* fp16 bytes on the GPU (parameters x 2) */
    long long halfs;            /* the allocation, alignment padding included */
    half *embed, *final_norm, *lm_head;   /* lm_head = embed when tied */
    LayerWeights *layer;
    double load_ms;
    const char *disk_dtype;     /* "bf16", "fp16", "fp32", "synthetic" */
} GpuWeights;

/* From model_dir (NULL: synthetic from seed), converted to fp16 on the GPU; prints one
 * line unless quiet. */
void gpu_weights_load(GpuWeights *w, const Config *c, const char *model_dir, unsigned long long seed,
                      cudaStream_t s, int quiet);
void gpu_weights_free(GpuWeights *w);
/* An order-free hash of every fp16 weight: equal weights, equal checksum. */
unsigned long long gpu_weights_checksum(const GpuWeights *w, cudaStream_t s);

#endif
