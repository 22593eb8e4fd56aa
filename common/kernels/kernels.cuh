/* kernels: the model's GPU kernels, each behind a host launcher that goes through
 * LAUNCH() (launch.h) with its model part and layer. Activations are fp16, row-major
 * [tokens][width]; every sum is accumulated in fp32 and rounded to fp16 where Hugging
 * Face's fp16 model rounds. The KV cache is [row][kv_head][max_seq][head_dim] per layer. */
#ifndef KIT_KERNELS_CUH
#define KIT_KERNELS_CUH
#include <cuda_fp16.h>
#include <stdint.h>
#include "parts.h"

/* LAUNCH() with programmatic dependent launch when pdl is set (sm_90+): the kernel may start
 * while the one before it finishes; it must call pdl_wait() before it reads what that one
 * wrote (weights it may read before). pdl_wait() also lets the next kernel start, so a
 * kernel that has started knows that every kernel two or more before it has finished
 * (GemvArgs.epi_early relies on it). Used by the fused decode step only. LAUNCH_CLUSTER
 * also groups blocks z, z+1, ... z+cz-1 into a thread-block cluster (sm_90+; cz = 0: none). */
#define LAUNCH_CLUSTER(pdl, cz, part, layer, opname, kernel, grid, block, smem, strm, ...)   \
    do {                                                                                  \
        op_begin(part, layer, opname);                                                    \
        cudaLaunchAttribute at_[2];                                                       \
        int n_ = 0;                                                                       \
        if (pdl) {                                                                        \
            at_[n_].id = cudaLaunchAttributeProgrammaticStreamSerialization;              \
            at_[n_++].val.programmaticStreamSerializationAllowed = 1;                     \
        }                                                                                 \
        if (cz) {                                                                         \
            at_[n_].id = cudaLaunchAttributeClusterDimension;                             \
            at_[n_].val.clusterDim.x = 1, at_[n_].val.clusterDim.y = 1;                   \
            at_[n_++].val.clusterDim.z = (cz);                                            \
        }                                                                                 \
        cudaLaunchConfig_t cf_ = {};                                                      \
        cf_.gridDim = dim3(grid), cf_.blockDim = dim3(block);                             \
        cf_.dynamicSmemBytes = smem, cf_.stream = strm;                                   \
        cf_.attrs = at_, cf_.numAttrs = n_;                                               \
        CUDA_CHECK(cudaLaunchKernelEx(&cf_, kernel, __VA_ARGS__));                        \
        KERNEL_CHECK(opname);                                                             \
        op_end();                                                                         \
    } while (0)
#define LAUNCH_PDL(pdl, ...) LAUNCH_CLUSTER(pdl, 0, __VA_ARGS__)

/* ---- weights (ops.cu) ---- */
void k_synth_fill(cudaStream_t s, half *dst, long long n, uint64_t seed, int tensor_index, int is_norm);
void k_convert(cudaStream_t s, half *dst, const void *src, long long n, int src_is_f32);  /* bf16/f32 -> fp16 */
void k_checksum(cudaStream_t s, const half *w, long long n, unsigned long long *sum);  /* order-free hash */
/* int8 weight-only: w [rows][cols] -> q (int8) and scale[rows] (fp32), as model.h defines it */
void k_quantize_int8(cudaStream_t s, const half *w, int8_t *q, float *scale, int rows, int cols);
/* and back, into fp16 w = q x scale (the unfused path; cols % 8 = 0) */
void k_dequantize_int8(cudaStream_t s, int pdl, int layer, const int8_t *q, const float *scale, half *w, int rows,
                       int cols);
/* cos/sin of every position x frequency, rounded to fp16 like HF's rotary embedding, and the
 * frequencies (inv_freq, fp32, head_dim / 2) */
void k_rope_table(cudaStream_t s, half *cos_t, half *sin_t, float *inv_freq, int max_seq, int head_dim, float theta);

/* ---- the token path: any number of tokens, token t in KV-cache row row[t] at pos[t] ---- */
void k_embed(cudaStream_t s, int pdl, const int *tok, const half *E, half *out, int T, int dim);
/* out[t] = w * (x[t] / rms(x[t])) for T rows of dim */
void k_rmsnorm(cudaStream_t s, int pdl, int layer, const half *x, const half *w, half *out, int T, int dim, float eps);
/* qkv [T][(nh + 2 nkv) hd]: RoPE on q in place and on k; k, v into the cache at (row, pos) */
void k_rope_kv_append(cudaStream_t s, int layer, half *qkv, const int *row, const int *pos,
                      const half *cos_t, const half *sin_t, half *kc, half *vc,
                      int T, int nh, int nkv, int hd, int max_seq);
void k_silu_mul(cudaStream_t s, int layer, const half *gu, half *act, int T, int ffn_dim);
/* tok[b] = argmax(logits[b]) (lowest id on ties, like torch.argmax); pos[b] += advance */
void k_argmax(cudaStream_t s, int pdl, const half *logits, int B, int vocab, int *tok, int *pos, int advance);

/* ---- the eager step's kernels (eager.cu): PyTorch eager's, one per aten op ----
 * A View reads an input through broadcasting or a slice: output element i reads element
 * (i / div) * mul + i % mod + off. */
typedef struct { long long div, mul, mod, off; } View;
static inline __host__ __device__ View view_flat(long long n) { View v = {n, 0, n, 0}; return v; }   /* same shape */
static inline __host__ __device__ View view_rows(long long w) { View v = {w, 1, 1, 0}; return v; }   /* [T][1] over [T][w] */
static inline __host__ __device__ View view_cols(long long w) { View v = {1, 0, w, 0}; return v; }   /* [w] over [T][w] */
/* a [T][hd] table over [T][heads][hd] (cos, sin over q or k) */
static inline __host__ __device__ View view_heads(int heads, int hd) { View v = {(long long)heads * hd, hd, hd, 0}; return v; }
/* x[..., hd/2:] of [rows][hd], as [rows][hd/2] (rotate_half's x2) */
static inline __host__ __device__ View view_upper(int hd) { View v = {hd / 2, hd, hd / 2, hd / 2}; return v; }
void k_eager_pow2(cudaStream_t s, int layer, const char *op, const float *x, float *y, long long n);
void k_eager_add_scalar(cudaStream_t s, Part p, int layer, const char *op, const float *x, float c, float *y,
                        long long n);
void k_eager_mul_scalar(cudaStream_t s, Part p, int layer, const char *op, const float *x, float c, float *y,
                        long long n);
void k_eager_rsqrt(cudaStream_t s, int layer, const char *op, const float *x, float *y, long long n);
void k_eager_cos(cudaStream_t s, const char *op, const float *x, float *y, long long n);
void k_eager_sin(cudaStream_t s, const char *op, const float *x, float *y, long long n);
void k_eager_neg(cudaStream_t s, int layer, const char *op, const half *x, View xv, half *y, long long n);
void k_eager_silu(cudaStream_t s, int layer, const char *op, const half *x, half *y, long long n);
void k_eager_mul_f32(cudaStream_t s, int layer, const char *op, const float *a, const float *b, View bv, float *y,
                     long long n);
void k_eager_mul(cudaStream_t s, Part p, int layer, const char *op, const half *a, const half *b, View bv, half *y,
                 long long n);
void k_eager_add(cudaStream_t s, Part p, int layer, const char *op, const half *a, const half *b, View bv, half *y,
                 long long n);
void k_eager_add_int(cudaStream_t s, const char *op, const int *a, const int *b, View bv, int *y, long long n);
void k_eager_arange(cudaStream_t s, const char *op, int *y, int per_row, int n);
void k_eager_h2f(cudaStream_t s, Part p, int layer, const char *op, const half *x, float *y, long long n);
void k_eager_f2h(cudaStream_t s, Part p, int layer, const char *op, const float *x, half *y, long long n);
void k_eager_f2f(cudaStream_t s, const char *op, const float *x, View xv, float *y, long long n);
void k_eager_i2f(cudaStream_t s, const char *op, const int *x, float *y, long long n);
void k_eager_mean(cudaStream_t s, int layer, const char *op, const float *x, float *y, int T, int dim);
/* torch.cat((a, b), -1) of `rows` rows: a's wa values (row stride sa), then b's wb (stride sb) */
void k_eager_cat_f32(cudaStream_t s, const char *op, const float *a, int sa, int wa, const float *b, int sb, int wb,
                     float *y, long long rows);
void k_eager_cat(cudaStream_t s, int layer, const char *op, const half *a, int sa, int wa, const half *b, int sb,
                 int wb, half *y, long long rows);
/* the KV cache's cat, in place: `slots` rows (row[slot x per_row]) of per_row new tokens each
 * (x [tokens][nkv][hd], the first at pos[slot x per_row]) */
void k_eager_cat_cache(cudaStream_t s, int layer, const char *op, const half *x, const int *row, const int *pos,
                       half *cache, int slots, int per_row, int nkv, int hd, int max_seq,
                       int len);   /* len: a row's positions after the append (the op's cost) */

/* ---- attention over the KV cache (attention.cu) ----
 * Query t (row row[t] or t when row is NULL, position pos[t]) attends to cache positions
 * 0..pos[t] of its row. `splits` blocks share each (query, kv head); the last one to
 * finish combines their partial softmaxes (part; counter: T x nkv ints, zeroed once). */
typedef struct {
    const half *q; int q_stride;
    const int *row, *pos;
    const half *kc, *vc;
    half *out; int out_stride;
    int T, nh, nkv, hd, max_seq, splits;
    float *part; int *counter;
    int one_row;    /* 1: all T queries are of row row[0] (a prompt): a tiled kernel shares the key loads */
} AttnArgs;
void k_attention(cudaStream_t s, int pdl, int layer, const AttnArgs *a);
long long attn_part_floats(int slices, int group, int hd);   /* the part scratch for that many slices */
enum { ATTN_MAX_SPLITS = 8 };
int attn_supported(int nh, int nkv, int hd);    /* head_dim 16/32/64/128, <= 8 q heads per kv head */

/* ---- decode GEMV for up to 32 rows on tensor cores (gemv.cu): y = W x ----
 * W [N][K] fp16 (or int8 with a scale per row) is read once for all B rows. With norm_w (B <= GEMV_NORM_ROWS) x is
 * RMS-normalised on the way in; the epilogue decides where the rows go. Each row's result is
 * bit for bit the same whatever B is (batch-invariant). */
enum { EPI_STORE, EPI_RESIDUAL, EPI_SILU_MUL, EPI_QKV_ROPE };
typedef struct {
    const half *w; int N, K;
    const half *x; int x_stride, B;
    const half *norm_w; float eps;
    half *y; int y_stride;
    /* EPI_QKV_ROPE: q -> y, k/v -> the cache at pos[b] */
    const int *pos; const half *cos_t, *sin_t; half *kc, *vc; int nh, nkv, hd, max_seq;
    int epi_early;  /* 1: the epilogue's inputs (the residual y; pos) were not written by the kernel
                     * just before, so the bulk kernel reads them before it waits for that one */
    float *part; int *counter;  /* scratch for the split kernel (B > GEMV_NORM_ROWS): gemv_part_floats(N)
                                 * floats and (N + 15) / 16 counters, zeroed once; NULL: streaming */
    int stream;     /* 1: the register-streaming kernel, whatever else could run (the tests compare) */
    int tile8;      /* set by k_gemv: the tile height (8 or 16 rows) it chose */
    const int8_t *w8; const float *scale;   /* int8 weights instead of w (NULL), one fp32 scale per row:
                                             * y[r] = scale[r] x sum_k w8[r][k] x[k] (before the epilogue) */
    int plain;      /* 1: the plain kernel (fp16, B <= GEMV_NORM_ROWS), as a GEMV_PLAIN build runs every GEMV */
} GemvArgs;
enum { GEMV_MAX_ROWS = 32, GEMV_NORM_ROWS = 8 };
void k_gemv(cudaStream_t s, int pdl, Part part, int layer, int epi, const GemvArgs *a);
int gemv_has_bulk(void);    /* this GPU runs the bulk-copy kernel (sm_90+ with room for its ring) */
long long gemv_part_floats(int N);  /* the split kernel's scratch for an N-row W */
int gemv_takes_split(const GemvArgs *a);    /* 1: k_gemv runs the split kernel for a */

/* ---- the persistent decode step (persistent.cu): the fused step's arithmetic in one
 * kernel of one block an SM, tiles waiting on counters instead of kernel boundaries ---- */
enum { PERSIST_THREADS = 512, PERSIST_STAGE_COLS = 1024, PERSIST_MAX_ROWS = 8, PERSIST_MAX_STAGES = 16 };  /* + a copy warp */
enum { PERSIST_TRACE_SLOTS = 5 };  /* per block and op: 3 %globaltimer stamps, 2 cycle counts */
typedef struct { const half *wqkv, *wo, *wgu, *wdown, *attn_norm, *ffn_norm; } PersistLayer;
typedef struct {
    const PersistLayer *layers;             /* on the GPU, one a layer */
    int n_layers, dim, qd, kvd, ffn_dim, vocab, nh, nkv, hd, max_seq, B;
    float eps;
    long long kv_layer;                     /* halfs of one layer's K (or V) cache */
    const half *embed, *final_norm, *lm_head, *cos_t, *sin_t;
    half *h, *q, *attn, *act, *logits, *kc, *vc;
    int *tok, *pos;
    uint32_t *counters;                     /* persist_counter_count(), zeroed once */
    float *best_v; int *best_i;             /* lm_head's per-tile maxima: B x ceil(vocab / 16) */
    uint64_t *trace; int trace_ops;         /* NULL, or blocks x trace_ops x PERSIST_TRACE_SLOTS */
    uint32_t epoch;                         /* this step's number, 1, 2, ... (the counters' target) */
    uint32_t rows_sum;                      /* the rows of steps 1..epoch: the per-row counters' target */
    int ring_stages, x_stride, x_bytes;     /* from persist_layout() */
} PersistArgs;
long long persist_counter_count(int n_layers, int nh, int nkv, int qd, int ffn_dim);
/* the shared memory of a block for B rows (ring_stages, x_stride, x_bytes set in a); 0 if
 * fewer than two ring stages fit */
int persist_layout(PersistArgs *a);
int persist_blocks_per_sm(int smem);        /* 0 when a block of that size does not fit */
void k_persistent_step(cudaStream_t s, const PersistArgs *a, int blocks, int smem);

/* ---- device helpers shared by the kernel files ---- */
#ifdef __CUDACC__
__device__ __forceinline__ half f16(float x) { return __float2half_rn(x); }
__device__ __forceinline__ float f32(half x) { return __half2float(x); }
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
/* NB sums over warps() warps (from warp 0), every thread of them gets them, always added in
 * the same order: a tree in each warp, then a tree over the warps. red: NB x 32 floats of
 * shared memory; sync(): the barrier that joins those warps */
template <int NB, typename Warps, typename Sync>
__device__ __forceinline__ void tree_sums(float (&v)[NB], float (*red)[32], Warps warps, Sync sync) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int b = 0; b < NB; b++) {
        v[b] = warp_sum(v[b]);
        if (lane == 0) red[b][threadIdx.x >> 5] = v[b];
    }
    sync();
#pragma unroll
    for (int b = 0; b < NB; b++) v[b] = warp_sum(lane < warps() ? red[b][lane] : 0.f);
    sync();
}
/* the same over the whole block (blockDim.x a multiple of 32) */
template <int NB>
__device__ __forceinline__ void block_sums(float (&v)[NB]) {
    __shared__ float red[NB][32];
    tree_sums(v, red, [] { return (int)(blockDim.x >> 5); }, [] { __syncthreads(); });
}
__device__ __forceinline__ float block_sum(float v) {
    float a[1] = {v};
    block_sums<1>(a);
    return a[0];
}
/* RMSNorm's 1 / sqrt(mean(x^2) + eps) of one row, by a block of 256 threads: thread i adds
 * x[i], x[i + 256], ... (the GEMV's norm prologue adds in exactly this order) */
enum { NORM_THREADS = 256 };
__device__ __forceinline__ float row_sumsq(const half *x, int dim) {
    float ss = 0.f;
    for (int i = threadIdx.x; i < dim; i += NORM_THREADS) ss = fmaf(f32(x[i]), f32(x[i]), ss);
    return ss;
}
__device__ __forceinline__ float rms_scale(float sumsq, int dim, float eps) { return rsqrtf(sumsq / dim + eps); }
/* HF LlamaRMSNorm's rounding: weight * (x * r).to(fp16) */
__device__ __forceinline__ half rms_apply(half x, float r, half w) { return f16(f32(w) * f32(f16(f32(x) * r))); }
/* c (16 x 8, fp32) += a (16 x 16, fp16, row major) * b (16 x 8, fp16, column major) on
 * tensor cores. Lane (g = lane / 4, t = lane % 4) holds a: rows g, g + 8 at columns 2t, 2t+1
 * (a0, a1), then the same at columns 2t+8, 2t+9 (a2, a3); b: rows 2t, 2t+1 (b0), 2t+8, 2t+9
 * (b1) of column g; c: rows g (c0, c1), g + 8 (c2, c3) at columns 2t, 2t+1. Two m16n8k8 on
 * sm_75, which has no m16n8k16 for fp16. */
__device__ __forceinline__ void mma16816(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(b0));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a2), "r"(a3), "r"(b1));
#endif
}
/* programmatic dependent launch (no-ops before sm_90 and when launched without it): wait
 * for the kernel before to finish, then let the next one start. Letting it start only now,
 * not at this kernel's first instruction, keeps at most two kernels in flight; it cost
 * nothing measurable (docs/PERF_LOG.md, v17). */
__device__ __forceinline__ void pdl_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
/* HF's apply_rotary_pos_emb on one pair (i, i + hd/2): q*cos + rotate_half(q)*sin, every
 * product rounded to fp16 as torch does */
__device__ __forceinline__ void rope_pair(half &a, half &b, half c, half s) {
    float x0 = f32(a), x1 = f32(b);
    a = f16(f32(f16(x0 * f32(c))) + f32(f16(-x1 * f32(s))));
    b = f16(f32(f16(x1 * f32(c))) + f32(f16(x0 * f32(s))));
}
/* torch.nn.functional.silu in fp32 */
__device__ __forceinline__ float silu_f(float g) { return g / (1.0f + expf(-g)); }
#endif

#endif
