/* gpu_model: TinyLlama on the GPU in fp16. Weights from a checkpoint (converted to fp16 on
 * the GPU) or synthetic (generated on the GPU from a seed); a static KV cache for
 * max_batch x max_seq; prefill with cuBLAS; decode of a batch in one of three ways:
 *   eager  - the kernels PyTorch eager launches for Hugging Face's Llama, one for one (903
 *            launches a step for TinyLlama, 155 of them linear layers)
 *   fused  - one kernel per natural op (fused QKV and gate-up GEMVs)
 *   graph  - the fused step captured once into a CUDA graph and replayed
 *   graph_eager - the eager step captured and replayed
 *   persistent - beyond the week: the whole step in one kernel resident on every SM, each tile
 *            waiting only for the tiles it reads (kernels/persistent.cu) */
#ifndef KIT_GPU_MODEL_H
#define KIT_GPU_MODEL_H
#include <cuda_runtime.h>
#include "model/config.h"

typedef enum { MODE_EAGER, MODE_FUSED, MODE_GRAPH, MODE_GRAPH_EAGER, MODE_PERSISTENT, MODE_COUNT } Mode;
const char *mode_name(Mode m);          /* "eager", "fused", "graph", "graph_eager", "persistent" */
int mode_from_name(const char *s);      /* -1 if unknown */

/* The weights and how the linear layers read them:
 *   fp16          as loaded (bf16/fp32 on disk -> fp16 on the GPU)
 *   int8          int8 weight-only: every linear layer (lm_head too) quantized on the GPU at load,
 *                 a scale per output row; embeddings and norms stay fp16. The fused and graph
 *                 modes' GEMV reads the int8 weights itself (half the bytes). The eager modes, like
 *                 PyTorch eager, have no int8 matmul: they dequantize each layer first, as below
 *   int8_unfused  the same int8 weights, but every linear layer first written back to fp16 into a
 *                 scratch buffer (dequantize_int8) that the fp16 GEMV or GEMM then reads: 1 byte
 *                 read, 2 written, 2 read again per weight, where fp16 reads 2
 * The prefill dequantizes each layer for cuBLAS under both int8 choices. */
typedef enum { QUANT_FP16, QUANT_INT8, QUANT_INT8_UNFUSED, QUANT_COUNT } Quant;
const char *quant_name(Quant q);        /* "fp16", "int8", "int8_unfused" */
int quant_from_name(const char *s);     /* -1 if unknown */

typedef struct GpuModel GpuModel;
enum { MODEL_MAX_BATCH = 64 };     /* rows a model may hold: a CUDA graph is kept per batch size 1..64 */

typedef struct {
    const char *model_dir;  /* NULL: synthetic TinyLlama weights */
    unsigned long long seed;/* synthetic seed (default 1) */
    int max_batch;          /* rows of the KV cache (default 1) */
    int max_seq;            /* KV cache length (default: config max_seq) */
    int quiet;              /* 0: print the load line (bytes, GB/s, dtype on disk -> fp16) */
    const Config *config;   /* synthetic weights of this shape instead of TinyLlama's (tests) */
    Quant quant;            /* default fp16 */
} GpuModelOpts;

GpuModel *gpu_model_open(const GpuModelOpts *o);
void gpu_model_free(GpuModel *m);
const Config *gpu_model_config(const GpuModel *m);
double gpu_model_load_ms(const GpuModel *m);        /* disk -> GPU (or synthetic fill) */
long long gpu_model_weight_bytes(const GpuModel *m);/* the weights' bytes on the GPU: fp16, or int8_weight_bytes */
Quant gpu_model_quant(const GpuModel *m);
const char *gpu_model_disk_dtype(const GpuModel *m);/* "bf16", "fp16", "fp32", "synthetic" */
cudaStream_t gpu_model_stream(const GpuModel *m);
/* 1 when the fused step's kernels are launched with programmatic dependent launch (sm_90 code
 * on an sm_90 GPU, KIT_NO_PDL unset) */
int gpu_model_pdl(const GpuModel *m);
/* An order-free hash of every weight on the GPU: equal weights, equal checksum. */
unsigned long long gpu_model_checksum(GpuModel *m);
/* A calibration for the timeline model (measure/replay.h): the fused step's gate/up GEMV for
 * B rows (B <= max_batch), alone, one launch per layer back to back (each layer's own weights,
 * so they come from memory as in a step), no dispatcher, no PDL; three rounds timed with CUDA
 * events, the median round's time per launch in us. *bytes and *flops: the op's cost as the
 * launch path records it. Overwrites the step's scratch (act), not its cache or tokens. */
double gpu_model_time_gemv(GpuModel *m, int B, double *bytes, double *flops);

/* Prefill `n` prompt tokens into every batch row (rows restart at position 0) and
 * write the first new token of each row to device memory. Does not synchronize. The prefill
 * runs the way `mode` does: the eager modes launch the eager step's ops on the whole prompt
 * (PyTorch eager's prefill), the others the token path (fused kernels and cuBLAS).
 * logits_host (optional, n x vocab floats) receives the logits of every prompt position
 * (this synchronizes). */
void gpu_prefill(GpuModel *m, Mode mode, const int *ids, int n, int batch, float *logits_host);
/* The same with a prompt of its own per row: row r's lens[r] ids follow row r-1's in ids;
 * logits_host (optional) receives (lens[0] + ... + lens[batch-1]) x vocab floats. */
void gpu_prefill_rows(GpuModel *m, Mode mode, const int *ids, const int *lens, int batch, float *logits_host);
/* One decode step for the `batch` rows: consumes the last tokens, appends to the KV
 * cache, writes the next tokens to device memory. Does not synchronize. */
void gpu_decode_step(GpuModel *m, Mode mode);
/* Copies the newest token of each row to the host (synchronizes). */
void gpu_last_tokens(GpuModel *m, int *tokens);
/* Copies the logits that chose them to the host, batch x vocab floats (synchronizes): the
 * last decode step's, or after a prefill its last token's. */
void gpu_last_logits(GpuModel *m, float *logits);

/* Kernels and linear-layer launches of one decode step in a mode (counted by the launch
 * path; for graph modes, the kernels inside the graph and 1 host launch), and the bytes of
 * weights its linear layers read (and, unfused int8, its dequantize kernels write), as
 * launched: each kernel's N x K x bytes per weight (+ 4 per row's scale). */
typedef struct { int kernels, gemms, host_launches; long long weight_bytes; } StepCounts;
StepCounts gpu_step_counts(GpuModel *m, Mode mode);

/* NULL when gpu_decode_step(m, mode) runs at `batch` rows; else one sentence saying why it
 * does not (only persistent refuses: it needs an sm_90 GPU and code, fp16 weights, at most
 * PERSIST_MAX_ROWS rows and all of its blocks resident at once). gpu_decode_step dies with the
 * same sentence. */
const char *gpu_mode_refusal(GpuModel *m, Mode mode, int batch);

/* Persistent mode's in-kernel trace: one decode step at the current batch with every block
 * writing %globaltimer at each op (before its wait, after it, after its last tile). Per op
 * kind, means over the layers, us: path = the op before complete -> this op complete; wait =
 * a block's time spinning before it may start the op; work = from then to its last tile done;
 * ring = the part of work its GEMV stages spent waiting for their weights to land; end = the
 * part in its tiles' ends (the warps' sums, the epilogue, the count).
 * Returns 0 (and fills nothing) when the mode is refused. */
enum { PT_EMBED, PT_QKV, PT_ATTN, PT_O, PT_GATE_UP, PT_DOWN, PT_LM_HEAD, PT_COUNT };
typedef struct {
    const char *name[PT_COUNT];
    double path_us[PT_COUNT], wait_us[PT_COUNT], work_us[PT_COUNT], ring_us[PT_COUNT], end_us[PT_COUNT];
    double step_us;         /* the first block's start -> the last block's end */
    int blocks, threads, ring_stages;
} PersistTrace;
int gpu_persistent_trace(GpuModel *m, PersistTrace *t);

/* generate: prefill + n_new-1 decode steps, greedy; out[batch x n_new]. Times TTFT (start
 * -> first token on the host) and each decode step (wall clock, synchronized per step),
 * and calls on_token(step, tokens[batch], t_ms_since_start, ctx) as a streamer would. */
typedef void (*TokenFn)(int step, const int *tokens, double t_ms, void *ctx);
typedef struct { double ttft_ms, total_ms; double step_ms[4096]; int n_steps; } GenTiming;
GenTiming gpu_generate(GpuModel *m, const int *ids, int n, int batch, int n_new, Mode mode,
                       int *out, TokenFn on_token, void *ctx);

#endif
