/* The decode GEMV: y = W x for B <= 32 rows of x, W [N][K] fp16 (or int8) read once for all of
 * them. A decode step is this kernel streaming 2.2 GB of weights, so it is built for bandwidth.
 *
 * Read it in this order: the entry, k_gemv, and its plan (gemv_plan: which kernel runs which
 * launch, as a table), right below the knobs; then gemv_plain, a plain one-warp-a-pair-of-rows
 * GEMV to read first; then what the tuned kernels share, the three tuned kernels, and last the
 * launch (each kernel's grid and shared memory).
 *
 * The three tuned kernels share everything but the way the weights and x arrive:
 *   - streaming (any GPU): a block works on tiles of 16 output rows (8 where 16 would leave
 *     resident blocks idle, see gemv_launch; a resident grid walks all of them, the next
 *     tile's loads in flight while the last one is reduced); its 8 warps split K, each lane
 *     streams 16-byte loads of two rows (GEMV_UNROLL loads of each in flight, the first issued
 *     before the kernel waits for the one before it: programmatic dependent launch);
 *   - bulk copy (sm_90, a few rows of x): a block whose ninth warp has the copy engine fill
 *     a ring of shared memory with the block's tiles while the other eight compute from it
 *     (gemv_bulk_tiles): one block per SM with a 128 KB ring, or, for o_proj and qkv, one
 *     block per tile with a ring just as deep (see SHORT_RING). At batch 1 it takes 11-34%
 *     less time;
 *   - split (any GPU, more than GEMV_NORM_ROWS rows of x): a block's warps each take one
 *     tile and the same eighth of K, whose x columns wait in shared memory; the eight
 *     eighths of a tile meet in global memory (gemv_split_tiles). At batch 32 it takes
 *     6% (qkv, o_proj) to 27% (down_proj) less of the step (docs/PERF_LOG.md, v21).
 * All three:
 *   - tensor cores do the arithmetic (mma m16n8k16, fp32 accumulation; m16n8k8 on sm_75):
 *     the 16 rows are the A operand, up to 8 rows of x the B operand, so B = 1 costs the
 *     same instructions as B = 8 and every weight is used for all rows at once. K is read
 *     in a permuted order (lane t of a quad holds k 8t..8t+7 of a 32-wide chunk, in W and x
 *     alike), which keeps every load 16 bytes wide and leaves the sum unchanged;
 *   - the split of K over warps is added in a fixed order, and a row of x meets the same
 *     instructions whatever B is, so its result is bit for bit the same at any batch size
 *     and in any of the kernels.
 * The neighbours it fuses (every kernel, the plain one too):
 *   prologue  RMSNorm of x (B <= GEMV_NORM_ROWS; beyond that the caller runs rmsnorm, which
 *             does the same arithmetic)
 *   epilogue  EPI_QKV_ROPE  tile rows i and i + head_dim/2 of a head: RoPE on q and k, k and
 *                           v straight into the KV cache
 *             EPI_SILU_MUL  tile rows gate i and up i: silu(gate) * up
 *             EPI_RESIDUAL  h += y (o_proj, down_proj)
 *             EPI_STORE     y (lm_head)
 * int8 weights (GemvArgs.w8, one fp32 scale per row): every tuned kernel reads them the same
 * way with a weight type WT of int8_t instead of half (see Frag, to_half8): a lane loads the
 * same 8 consecutive k of a row as 8 bytes instead of 16 and turns them into fp16 in
 * registers; the tensor cores then do what they do for fp16 (q x x is exact: q has 7 bits,
 * and the sums are fp32), and the row's scale multiplies the sum before the epilogue. Half
 * the weight bytes for the same instructions, plus the conversion. */
#include <stdint.h>
#include <type_traits>
#include "kernels/kernels.cuh"
#include "gpu/gpu.h"
#include "gpu/launch.h"

/* ---- the knobs: every tunable of this file, in one block (set with -D, e.g.
 * make NVEXTRA=-DGEMV_UNROLL=2; what each was measured at: docs/PERF_LOG.md) ---- */
#ifndef GEMV_PLAIN
#define GEMV_PLAIN 0            /* 1: the step runs gemv_plain wherever it can (fp16, B <= 8), and refuses the rest */
#endif
#ifndef GEMV_UNROLL
#define GEMV_UNROLL 4           /* streaming: 16-byte loads of each of a lane's two rows in flight */
#endif
#ifndef GEMV_MIN_BLOCKS
#define GEMV_MIN_BLOCKS 2       /* streaming and split: caps the registers so that many blocks stay resident per SM */
#endif
#ifndef GEMV_GRID_WAVES
#define GEMV_GRID_WAVES 1       /* streaming: the grid is at most this many times the blocks that stay resident */
#endif
#ifndef GEMV_TILE8
#define GEMV_TILE8 1            /* streaming: 8-row tiles where 16-row ones leave blocks idle (v11); 0: always 16 */
#endif
#ifndef GEMV_SPLIT_DEPTH
#define GEMV_SPLIT_DEPTH 8      /* split: chunks of its chain a warp keeps in registers */
#endif
#ifndef GEMV_BULK
#define GEMV_BULK 1             /* 0: sm_90 streams too */
#endif
#ifndef GEMV_BULK_INT8
#define GEMV_BULK_INT8 GEMV_BULK /* 0: sm_90 streams int8 weights */
#endif
#ifndef GEMV_STAGES
#define GEMV_STAGES 4           /* bulk: stages of the full ring */
#endif
#ifndef GEMV_INFLIGHT
#define GEMV_INFLIGHT 2         /* bulk: stages a block keeps in flight, of its ring's GEMV_STAGES (v20) */
#endif
#ifndef GEMV_BULK_K
#define GEMV_BULK_K 1024        /* bulk: the columns of a stage, in fp16 weights (2 KB of a row) */
#endif
#ifndef GEMV_SHORT_RING
#define GEMV_SHORT_RING 1       /* bulk: 0 gives every launch the full ring (see SHORT_RING) */
#endif
#ifndef GEMV_BULK_K_INT8
#define GEMV_BULK_K_INT8 (2 * GEMV_BULK_K) /* bulk: the columns of an int8 stage (2 KB of a row; 1 KB: v31) */
#endif
#ifndef GEMV_INFLIGHT_INT8
#define GEMV_INFLIGHT_INT8 GEMV_INFLIGHT /* bulk: stages in flight for int8 weights (v31) */
#endif
/* and the shapes they work in: 8 warps of 32 lanes split K (the norm prologue's order assumes
 * 256 threads), K in 32-wide chunks */
enum {
    GEMV_THREADS = 256, GEMV_WARPS = 8, CHUNK = 32,
    BULK_THREADS = GEMV_THREADS + 32,   /* the bulk kernel's ninth warp loads */
    BULK_X_BYTES = 32768,               /* the most x (B x K fp16) the bulk kernel holds beside its ring (v32) */
    SHORT_RING = 2,                     /* the short ring's stages (see gemv_plan) */
    SPLIT = -1,                         /* the split kernel's RING (below) */
    SPLIT_SMEM_MAX = 48 * 1024,         /* the most x the split kernel holds: K <= 6144 at 32 rows */
};

/* The weight type WT: half, or int8_t with a scale per row. A lane's 8 weights of a row at
 * one chunk arrive as one fragment, 16 bytes of fp16 or 8 of int8; int8 keeps PER = 2 times
 * the fragments in flight wherever fp16 keeps some, so the bytes in flight and the registers
 * that hold them stay the same. */
template <typename WT> using Frag = typename std::conditional<sizeof(WT) == sizeof(half), int4, int2>::type;
template <typename WT> constexpr int PER = (int)(sizeof(half) / sizeof(WT));
template <typename WT> constexpr bool INT8 = PER<WT> > 1;

/* A stage of the bulk kernel's ring, in weights: 16 rows of K columns (fp16 1024, int8 2048:
 * 2 KB of each row), a row ROW apart, padded by the 4 fragments a row's quad of lanes reads at
 * once (64 or 32 bytes), so that those of rows g and g + 1 fall in other banks */
template <typename WT> struct Bulk {
    static constexpr int K = INT8<WT> ? GEMV_BULK_K_INT8 : GEMV_BULK_K;
    static constexpr int ROW = K + 4 * (int)(sizeof(Frag<WT>) / sizeof(WT));
    static constexpr int STAGE = 16 * ROW;
};
/* the bulk kernel's dynamic shared memory: a ring of `ring` stages and their barriers, then x of xbytes */
template <typename WT> static int bulk_smem_bytes(int ring, int xbytes) {
    return ring * (Bulk<WT>::STAGE * (int)sizeof(WT) + 2 * (int)sizeof(uint64_t)) + xbytes;
}
/* the split kernel's shared memory: its chain's columns of x for nt * 8 rows */
static int split_smem_bytes(int nt, int K) {
    return ((K + CHUNK - 1) / CHUNK + GEMV_WARPS - 1) / GEMV_WARPS * nt * 8 * CHUNK * (int)sizeof(half);
}
/* its blocks: every chain (8) of every 8 16-row tiles */
static int split_blocks(int N) { return ((N + 15) / 16 + GEMV_WARPS - 1) / GEMV_WARPS * GEMV_WARPS; }

/* The kernels, defined below. One name per job, so that a profile says what ran; NT: groups of
 * 8 rows of x; RING: 0 the streaming kernel, SPLIT the split one, > 0 the sm_90 bulk one with a
 * ring of that many stages. */
#define GEMV_BOUNDS __launch_bounds__(RING > 0 ? (int)BULK_THREADS : (int)GEMV_THREADS, RING > 0 ? 1 : GEMV_MIN_BLOCKS)
template <int NT, int RING, typename WT> __global__ void GEMV_BOUNDS gemv_qkv_rope_append(GemvArgs a);
template <int NT, int RING, typename WT> __global__ void GEMV_BOUNDS gemv_residual(GemvArgs a);
template <int NT, int RING, typename WT> __global__ void GEMV_BOUNDS gemv_gate_up_silu(GemvArgs a);
template <int NT, int RING, typename WT> __global__ void GEMV_BOUNDS gemv_lm_head(GemvArgs a);
template <int EPI> __global__ void __launch_bounds__(GEMV_THREADS) gemv_plain(GemvArgs a);

/* ---- the entry and its plan ---- */
typedef enum { G_PLAIN, G_STREAM, G_SPLIT, G_BULK } GemvKernel;
typedef struct {
    GemvKernel kernel;
    int nt;                     /* groups of 8 rows of x: ceil(B / 8) */
    int ring;                   /* the bulk kernel's stages: SHORT_RING or GEMV_STAGES */
} GemvPlan;

/* The bulk kernel's ring: a matrix of at most SHORT_RING stages a tile, and at most two tiles
 * an SM (o_proj and qkv), gets one block a tile and a ring of SHORT_RING stages, which holds
 * the whole tile. Its 78 KB of shared memory leave room on the SM for the next GEMV's block
 * (gate/up's 143 KB after o_proj), which under programmatic dependent launch starts its
 * copies while this one runs: graph batch 1 0.933 -> 0.918-0.926 ms (docs/PERF_LOG.md,
 * v16). (qkv would fit beside down_proj's 150 KB only if the SM kept all 228 KB for shared
 * memory; asking for that cost the attention more than qkv gained.) A short-ring block asks
 * for at least a third of the SM (gemv_launch), so that no more than two share one: on an
 * H200 three fit once a block needs 480 bytes less than now, and then o_proj's and qkv's
 * copies pile onto fewer SMs: 768 bytes less made graph batch 1 0.921 -> 0.989 ms (v18). */

/* Which kernel runs a launch, first case that holds wins:
 *   case                                                        kernel      blocks
 *   a.plain, or a GEMV_PLAIN build (fp16, B <= 8)               plain       a warp per pair of rows
 *   B > GEMV_NORM_ROWS, scratch given, all its blocks resident  split       8 per 8 tiles of 16 rows
 *   B <= GEMV_NORM_ROWS, sm_90 code with room for the full
 *   ring, x fits beside it, K x weight bytes % 16 = 0:
 *       a tile's K in <= SHORT_RING stages, <= 2 tiles an SM   bulk, short ring, a block per tile
 *       otherwise                                              bulk, full ring, a block per SM
 *   otherwise                                                   streaming   what stays resident
 * a.stream (the tests) skips the split and bulk cases. The streaming kernel cuts a matrix into
 * 8-row tiles where 16-row ones would leave resident blocks idle (gemv_launch). */
static GemvPlan gemv_plan(const GemvArgs &a) {
    GemvPlan p = {G_STREAM, (a.B + 7) / 8, 0};
    const bool int8 = a.w8 != NULL;
    if (a.plain || GEMV_PLAIN) {
        if (int8 || a.B > GEMV_NORM_ROWS)
            die("gemv: the plain GEMV (%s) reads fp16 weights for at most %d rows; this launch has %s weights and %d "
                "rows: rebuild without GEMV_PLAIN", a.plain ? "GemvArgs.plain" : "a GEMV_PLAIN build", GEMV_NORM_ROWS,
                int8 ? "int8" : "fp16", a.B);
        p.kernel = G_PLAIN;
    } else if (gemv_takes_split(&a)) p.kernel = G_SPLIT;
    else if (p.nt == 1 && !a.stream && (int8 ? GEMV_BULK_INT8 : GEMV_BULK) && a.K * (int8 ? 1 : 2) % 16 == 0 &&
             (long long)a.B * a.K * (int)sizeof(half) <= BULK_X_BYTES && gemv_has_bulk()) {
        const int stage_k = int8 ? Bulk<int8_t>::K : Bulk<half>::K, stages = (a.K + stage_k - 1) / stage_k;
        p.kernel = G_BULK;
        p.ring = GEMV_SHORT_RING && stages <= SHORT_RING && (a.N + 15) / 16 <= 2 * gpu_sm_count() ? SHORT_RING : GEMV_STAGES;
    }
    return p;
}

template <typename WT> static void launch_plan(cudaStream_t s, int pdl, Part part, int layer, int epi, GemvPlan p,
                                               const GemvArgs &a);
static void launch_plain(cudaStream_t s, Part part, int layer, int epi, const GemvArgs &a);

void k_gemv(cudaStream_t s, int pdl, Part part, int layer, int epi, const GemvArgs *a) {
    if (a->B < 1 || a->B > GEMV_MAX_ROWS || (a->norm_w && a->B > GEMV_NORM_ROWS) || a->K % 8 ||
        (epi == EPI_QKV_ROPE && a->hd % 16) || ((epi == EPI_QKV_ROPE || epi == EPI_SILU_MUL) && a->N % 16))
        die("gemv: %d rows of K=%d, N=%d are outside what it handles (B <= %d, <= %d with the norm; K %% 8 = 0)",
            a->B, a->K, a->N, GEMV_MAX_ROWS, GEMV_NORM_ROWS);
    if (!a->w == !a->w8 || (a->w8 && !a->scale))
        die("gemv: the weights are either fp16 (w) or int8 with a scale per row (w8 and scale), one of the two");
    /* the weight bytes it reads, for the step's count (StepCounts.weight_bytes) */
    g_launch.weight_bytes += (long long)a->N * a->K * (a->w8 ? 1 : 2) + (a->w8 ? 4LL * a->N : 0);
    /* the op's bytes: its weights (and scales), x in, y out (and in, added to), and the split
     * kernel's partial sums, written and read back: a column of mma sums for every 8 rows */
    const double sums = gemv_takes_split(a) ? 2.0 * sizeof(float) * gemv_part_floats(a->N) * ((a->B + 7) / 8) /
                                                  (GEMV_MAX_ROWS / 8)
                                            : 0;
    op_cost((double)a->N * a->K * (a->w8 ? 1 : 2) + (a->w8 ? 4.0 * a->N : 0) +
                2.0 * a->B * (a->K + (epi == EPI_RESIDUAL ? 2 : 1) * a->N) + sums, 2.0 * a->B * a->N * a->K);
    const GemvPlan p = gemv_plan(*a);
    if (p.kernel == G_PLAIN) launch_plain(s, part, layer, epi, *a);
    else if (a->w8) launch_plan<int8_t>(s, pdl, part, layer, epi, p, *a);
    else launch_plan<half>(s, pdl, part, layer, epi, p, *a);
}

/* a tile's sums at the most rows: 8 chains x GEMV_MAX_ROWS / 8 mma columns x 4 values x 32 lanes */
long long gemv_part_floats(int N) { return (N + 15) / 16 * (long long)GEMV_WARPS * (GEMV_MAX_ROWS / 8) * 4 * 32; }

/* sm_90 and up, in a build that holds sm_90 code, where a block may hold the full ring: an
 * H100/H200 has 227 KB for one block, a cc 12 GPU about 99 KB, not enough (it streams). The
 * fp16 kernel stands for the int8 one, whose stages are 512 bytes smaller. */
int gemv_has_bulk(void) {
    static int fits = -1;
    if (fits < 0) {
        cudaFuncAttributes fa;
        CUDA_CHECK(cudaFuncGetAttributes(&fa, gemv_lm_head<1, GEMV_STAGES, half>));
        fits = gpu_sm90_paths() && fa.ptxVersion >= 90 &&
               fa.sharedSizeBytes + bulk_smem_bytes<half>(GEMV_STAGES, BULK_X_BYTES) <= (size_t)gpu_smem_optin();
    }
    return fits;
}

/* The split kernel takes a launch of more than GEMV_NORM_ROWS rows when it has its scratch
 * and all its blocks, 8 x ceil(N / 128), fit on the GPU at once: at batch 32 on an H200 qkv,
 * o_proj and down_proj (160, 128, 128 of 264), on a T4 none of TinyLlama's (80 fit). Every
 * split kernel, fp16 or int8, has 256 threads, at most 128 registers and no static shared
 * memory, so one stands for all. */
int gemv_takes_split(const GemvArgs *a) {
    static int resident = 0;
    if (!resident) {
        resident = gpu_blocks_per_sm((const void *)gemv_residual<4, SPLIT, half>, GEMV_THREADS, SPLIT_SMEM_MAX) * gpu_sm_count();
    }
    return a->B > GEMV_NORM_ROWS && a->part && !a->stream && a->K >= GEMV_WARPS * CHUNK &&
           split_smem_bytes((a->B + 7) / 8, a->K) <= SPLIT_SMEM_MAX && split_blocks(a->N) <= resident;
}

/* ---- what every kernel shares: which rows a tile holds, the prologue's norm, the epilogue ---- */

/* the weight row of a tile's fragment row (h = 0: rows g, h = 1: rows g + 8) */
template <int EPI>
__device__ __forceinline__ int tile_row(const GemvArgs &a, int tile, int h, int g) {
    if (EPI == EPI_SILU_MUL) return (h ? a.N / 2 : 0) + tile * 8 + g;
    if (EPI == EPI_QKV_ROPE) {
        const int hh = a.hd / 2, per_head = hh / 8;
        return tile / per_head * a.hd + tile % per_head * 8 + g + h * hh;
    }
    if (a.tile8) return h ? a.N : tile * 8 + g;     /* rows g + 8 absent: loads and stores skipped */
    return tile * 16 + h * 8 + g;
}

/* The RMSNorm scale of each row of x (norm_w), as rmsnorm computes it; threads past the
 * first GEMV_THREADS add nothing */
__device__ __forceinline__ void norm_scales(const GemvArgs &a, float *rs) {
    float ss[GEMV_NORM_ROWS];
#pragma unroll
    for (int b = 0; b < GEMV_NORM_ROWS; b++)
        ss[b] = b < a.B && threadIdx.x < GEMV_THREADS ? row_sumsq(a.x + (long long)b * a.x_stride, a.K) : 0.f;
    block_sums<GEMV_NORM_ROWS>(ss);
    if (threadIdx.x < GEMV_NORM_ROWS) rs[threadIdx.x] = rms_scale(ss[threadIdx.x], a.K, a.eps);
    __syncthreads();
}

/* rms_apply on 8 halves of x at once (x and the norm weights as 16-byte vectors) */
__device__ __forceinline__ void rms_apply8(int4 &x, float r, int4 w) {
    half *xh = (half *)&x;
    const half *wh = (const half *)&w;
#pragma unroll
    for (int i = 0; i < 8; i++) xh[i] = rms_apply(xh[i], r, wh[i]);
}

/* For EPI_QKV_ROPE, the head of a pair of rows r0, r0 + head_dim / 2 and r0's place in it
 * (asked once a tile: a division the compiler would not hoist out of the rows' loop) */
template <int EPI> __device__ __forceinline__ int epi_head(const GemvArgs &a, int r0) { return EPI == EPI_QKV_ROPE ? r0 / a.hd : 0; }
template <int EPI> __device__ __forceinline__ int epi_col(const GemvArgs &a, int r0) { return EPI == EPI_QKV_ROPE ? r0 % a.hd : 0; }

/* What the epilogue of rows r0, r1 (head, i: epi_head, epi_col) reads for row b of x at position
 * pos (EPI_QKV_ROPE): the residual at r0 and r1 (EPI_RESIDUAL), or cos and sin at pos
 * (EPI_QKV_ROPE, q and k heads) */
template <int EPI>
__device__ __forceinline__ void epi_in(const GemvArgs &a, int b, int r0, int r1, bool ok0, bool ok1, int head, int i,
                                       int pos, float &in0, float &in1) {
    const int hh = a.hd / 2;
    const half *y = a.y + (long long)b * a.y_stride;
    if (EPI == EPI_RESIDUAL) {
        if (ok0) in0 = f32(y[r0]);
        if (ok1) in1 = f32(y[r1]);
    } else if (EPI == EPI_QKV_ROPE && head < a.nh + a.nkv) {
        in0 = f32(a.cos_t[pos * hh + i]), in1 = f32(a.sin_t[pos * hh + i]);
    }
}

/* The epilogue of rows r0, r1 for row b of x: s0, s1 their sums, in0, in1 and pos what epi_in read */
template <int EPI>
__device__ __forceinline__ void epi_out(const GemvArgs &a, int b, int r0, int r1, bool ok0, bool ok1, int head, int i,
                                        float s0, float s1, float in0, float in1, int pos) {
    const int hh = a.hd / 2;
    half y0 = f16(s0), y1 = f16(s1);
    half *y = a.y + (long long)b * a.y_stride;
    if (EPI == EPI_STORE) {
        if (ok0) y[r0] = y0;
        if (ok1) y[r1] = y1;
    } else if (EPI == EPI_RESIDUAL) {
        if (ok0) y[r0] = f16(in0 + f32(y0));
        if (ok1) y[r1] = f16(in1 + f32(y1));
    } else if (EPI == EPI_SILU_MUL) {
        y[r0] = f16(f32(f16(silu_f(f32(y0)))) * f32(y1));
    } else {                                          /* EPI_QKV_ROPE */
        if (head < a.nh + a.nkv) rope_pair(y0, y1, f16(in0), f16(in1));
        half *d;
        if (head < a.nh) d = y + head * a.hd;
        else {
            const bool is_k = head < a.nh + a.nkv;
            const int kvh = head - a.nh - (is_k ? 0 : a.nkv);
            d = (is_k ? a.kc : a.vc) + (((long long)b * a.nkv + kvh) * a.max_seq + pos) * a.hd;
        }
        d[i] = y0, d[i + hh] = y1;
    }
}

/* ---- the plain GEMV: read this one first ----
 * One warp, one pair of output rows (r0, r1: rows g and g + 8 of a 16-row tile, or the two an
 * epilogue needs together: gate i and up i, a RoPE pair), every row b of x (fp16, B <= 8). The
 * 32 lanes walk K eight columns (16 bytes) at a time, each multiplying its columns of the two
 * weight rows with every x row into fp32 sums (x normalised on the way in when norm_w is
 * set); then the warp adds its lanes' sums and lane 0 runs the epilogue. It reads every weight
 * once, as the tuned kernels do. What it lacks: one 16-byte load of each row in flight per
 * lane where the streaming kernel keeps GEMV_UNROLL, the weights' loads not started before it
 * waits for the kernel before (no programmatic dependent launch), its products on the CUDA
 * cores, a warp_sum per pair and row of x, and x read again by every warp. The test
 * (tests/gpu/test_gemv.cu) holds it to the CPU reference; `make NVEXTRA=-DGEMV_PLAIN=1` runs
 * the decode step on it. What that costs (H200, bin/tinyllama --mode graph --new 128, three
 * runs each in one call, docs/PERF_LOG.md v27): graph batch 1 at 1.273-1.282 ms a token on
 * this kernel, 0.834-0.842 on the tuned ones. */
template <int EPI>
__global__ void __launch_bounds__(GEMV_THREADS) gemv_plain(GemvArgs a) {
    __shared__ float rs[GEMV_NORM_ROWS];
    if (a.norm_w) norm_scales(a, rs);                     /* every row's 1 / rms, by the whole block */
    const int pair = blockIdx.x * GEMV_WARPS + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (pair >= (a.N + 15) / 16 * 8) return;
    const int r0 = tile_row<EPI>(a, pair / 8, 0, pair % 8), r1 = tile_row<EPI>(a, pair / 8, 1, pair % 8);
    const bool ok0 = r0 < a.N, ok1 = r1 < a.N;
    const int head = epi_head<EPI>(a, r0), i = epi_col<EPI>(a, r0);
    float s0[GEMV_NORM_ROWS] = {}, s1[GEMV_NORM_ROWS] = {};
    for (int k = 8 * lane; k < a.K; k += 8 * 32) {
        const int4 zero = make_int4(0, 0, 0, 0), nw = a.norm_w ? *(const int4 *)(a.norm_w + k) : zero;
        const int4 w0 = ok0 ? *(const int4 *)(a.w + (long long)r0 * a.K + k) : zero;
        const int4 w1 = ok1 ? *(const int4 *)(a.w + (long long)r1 * a.K + k) : zero;
#pragma unroll
        for (int b = 0; b < GEMV_NORM_ROWS; b++) {
            if (b >= a.B) break;
            int4 x = *(const int4 *)(a.x + (long long)b * a.x_stride + k);
            if (a.norm_w) rms_apply8(x, rs[b], nw);
            for (int j = 0; j < 8; j++) {
                const float xj = f32(((const half *)&x)[j]);
                s0[b] += f32(((const half *)&w0)[j]) * xj, s1[b] += f32(((const half *)&w1)[j]) * xj;
            }
        }
    }
#pragma unroll
    for (int b = 0; b < GEMV_NORM_ROWS; b++) {
        if (b >= a.B) break;
        const float y0 = warp_sum(s0[b]), y1 = warp_sum(s1[b]);
        if (lane == 0) {
            const int pos = EPI == EPI_QKV_ROPE ? a.pos[b] : 0;
            float in0 = 0.f, in1 = 0.f;
            epi_in<EPI>(a, b, r0, r1, ok0, ok1, head, i, pos, in0, in1);
            epi_out<EPI>(a, b, r0, r1, ok0, ok1, head, i, y0, y1, in0, in1, pos);
        }
    }
}

/* ---- what the tuned kernels share ---- */

/* c[4] += A (16 x 8k, rows g and g+8 of this lane in w0, w1) * B (8k x 8 cols) for one
 * 32-wide k chunk: the lane holds k 8t..8t+7 of rows g (w0), g+8 (w1) and x row g (x) */
__device__ __forceinline__ void mma_chunk(float (&c)[4], int4 w0, int4 w1, int4 x) {
    mma16816(c, w0.x, w1.x, w0.y, w1.y, x.x, x.y);
    mma16816(c, w0.z, w1.z, w0.w, w1.w, x.z, x.w);
}

template <typename WT> __device__ __forceinline__ const WT *weights(const GemvArgs &a) {
    if constexpr (!INT8<WT>) return a.w;
    else return a.w8;
}

/* a fragment of zeros (rows past N, k past K): zero weights, fp16 or int8 */
template <typename WT> __device__ __forceinline__ Frag<WT> zero_frag() {
    if constexpr (!INT8<WT>) return make_int4(0, 0, 0, 0);
    else return make_int2(0, 0);
}

/* weights are streamed once per step: keep them out of L1 */
template <typename WT> __device__ __forceinline__ Frag<WT> load_stream(const WT *p) { return __ldcs((const Frag<WT> *)p); }

/* A fragment as the 8 fp16 values the mma takes: fp16 as it is; int8 exactly, without an
 * int-to-float conversion: byte b, its sign bit flipped (b + 128 as an unsigned byte), becomes
 * the low byte of the fp16 0x64XX = 1024 + (b + 128), and subtracting 1152 leaves b. Per 4
 * weights: one xor, two byte permutes, two fp16x2 subtractions, all exact. */
__device__ __forceinline__ int4 to_half8(int4 w) { return w; }
__device__ __forceinline__ int i8x2_to_h2(uint32_t u, uint32_t sel) {
    uint32_t h = __byte_perm(u, 0x64646464u, sel);      /* bytes u.lo, 0x64, u.hi, 0x64 */
    asm("sub.f16x2 %0, %0, %1;" : "+r"(h) : "r"(0x64806480u));
    return (int)h;
}
__device__ __forceinline__ int4 to_half8(int2 q) {
    const uint32_t lo = (uint32_t)q.x ^ 0x80808080u, hi = (uint32_t)q.y ^ 0x80808080u;
    return make_int4(i8x2_to_h2(lo, 0x4140), i8x2_to_h2(lo, 0x4342), i8x2_to_h2(hi, 0x4140), i8x2_to_h2(hi, 0x4342));
}

/* The scales of a lane's two rows r0, r1 (int8), read with the rows' weights (they do not
 * depend on the kernel before) and applied to each warp's sums before they are added up, so
 * every kernel adds the same scaled sums in the same order. fp16 has none, and its kernels do
 * not even call the int8 code (if constexpr (INT8<WT>)): a call to an empty function was
 * enough to change their registers, and their code stays as it was, instruction for
 * instruction. */
template <typename WT> struct RowScales {};
template <> struct RowScales<int8_t> {
    float s0, s1;
    __device__ __forceinline__ void read(const GemvArgs &a, int r0, int r1, bool ok0, bool ok1) {
        s0 = ok0 ? a.scale[r0] : 0.f, s1 = ok1 ? a.scale[r1] : 0.f;
    }
    template <int NT> __device__ __forceinline__ void apply(float (&c)[NT][4]) const {
#pragma unroll
        for (int nt = 0; nt < NT; nt++) c[nt][0] *= s0, c[nt][1] *= s0, c[nt][2] *= s1, c[nt][3] *= s1;
    }
};

/* f(nt, j, b) for each row b = nt * 8 + 2t + j of x that lane (g, t) holds, those below B */
template <int NT, typename F>
__device__ __forceinline__ void each_row(const GemvArgs &a, int t, F f) {
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            if (nt * 8 + 2 * t + j < a.B) f(nt, j, nt * 8 + 2 * t + j);
}

/* What the epilogue reads, for rows r0 and r1 of the tile: the residual (in0, in1), or a
 * row's position and then its cos and sin (RoPE). It is read for every row before anything
 * is written: the compiler may not move a load above a store through a pointer that could
 * alias, so reading row by row would cost a round trip per row, 16 of them a tile at batch
 * 32. The bulk kernel reads it for its first tile before it waits for the kernel before
 * (epi_early). */
template <int NT>
struct EpiIn {
    float in0[NT][2], in1[NT][2];
    int pos[NT][2];
};
template <int NT, int EPI>
__device__ __forceinline__ void epi_read(const GemvArgs &a, EpiIn<NT> &e, int r0, int r1, bool ok0, bool ok1, int t) {
    const int head = epi_head<EPI>(a, r0), i = epi_col<EPI>(a, r0);
    e = EpiIn<NT>{};
    if (EPI == EPI_QKV_ROPE) each_row<NT>(a, t, [&](int nt, int j, int b) { e.pos[nt][j] = a.pos[b]; });
    each_row<NT>(a, t, [&](int nt, int j, int b) {
        epi_in<EPI>(a, b, r0, r1, ok0, ok1, head, i, e.pos[nt][j], e.in0[nt][j], e.in1[nt][j]);
    });
}

/* the epilogue of one tile: lane (g, t) holds rows r0 (c0, c1) and r1 (c2, c3) for x rows
 * 2t and 2t + 1 of each 8-row group; e is what epi_read read for those rows */
template <int NT, int EPI>
__device__ __forceinline__ void gemv_epilogue(const GemvArgs &a, const float (&c)[NT][4], const EpiIn<NT> &e, int r0,
                                              int r1, bool ok0, bool ok1, int t) {
    const int head = epi_head<EPI>(a, r0), i = epi_col<EPI>(a, r0);
    each_row<NT>(a, t, [&](int nt, int j, int b) {
        epi_out<EPI>(a, b, r0, r1, ok0, ok1, head, i, c[nt][j], c[nt][2 + j], e.in0[nt][j], e.in1[nt][j], e.pos[nt][j]);
    });
}

/* the x rows lane group g feeds to the mma (row nt * 8 + g, the last one past B) and their scales */
template <int NT>
__device__ __forceinline__ void x_rows(const GemvArgs &a, const float *rs, int g, const half *(&xrow)[NT],
                                       float (&xr)[NT]) {
#pragma unroll
    for (int nt = 0; nt < NT; nt++) {
        const int b = min(nt * 8 + g, a.B - 1);
        xrow[nt] = a.x + (long long)b * a.x_stride;
        xr[nt] = a.norm_w ? rs[b < GEMV_NORM_ROWS ? b : 0] : 0.f;
    }
}

/* one 32-wide chunk at k (this lane's 8 columns) of the tile's two weight rows against every
 * x row, normalised on the way in when norm_w is set */
template <int NT>
__device__ __forceinline__ void chunk_mma(float (&c)[NT][4], int4 w0, int4 w1, const half *const (&xrow)[NT],
                                          const float (&xr)[NT], const half *norm_w, int k, int K) {
    int4 nw = make_int4(0, 0, 0, 0);
    if (norm_w && k < K) nw = *(const int4 *)(norm_w + k);
#pragma unroll
    for (int nt = 0; nt < NT; nt++) {
        int4 xv = make_int4(0, 0, 0, 0);
        if (k < K) xv = *(const int4 *)(xrow[nt] + k);
        if (norm_w) rms_apply8(xv, xr[nt], nw);
        mma_chunk(c[nt], w0, w1, xv);
    }
}

/* the GEMV_THREADS threads that compute (the bulk kernel has one more warp, which only loads) */
__device__ __forceinline__ void compute_sync(void) { asm volatile("bar.sync 1, %0;" ::"r"((int)GEMV_THREADS) : "memory"); }

/* the end of a tile: the warps' partial sums added in a fixed order (warp 0, 1, ... 7), then
 * the epilogue by warp 0 */
template <int NT, int EPI>
__device__ __forceinline__ void tile_finish(const GemvArgs &a, float (&c)[NT][4], float (*red)[NT * 4][32], int r0,
                                            int r1, bool ok0, bool ok1, const EpiIn<NT> *early = NULL) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int j = 0; j < 4; j++) red[warp][nt * 4 + j][lane] = c[nt][j];
    compute_sync();
    if (warp == 0) {
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                float s = 0.f;
#pragma unroll
                for (int w = 0; w < GEMV_WARPS; w++) s += red[w][nt * 4 + j][lane];
                c[nt][j] = s;
            }
        EpiIn<NT> e;
        if (early) e = *early;
        else epi_read<NT, EPI>(a, e, r0, r1, ok0, ok1, lane & 3);
        gemv_epilogue<NT, EPI>(a, c, e, r0, r1, ok0, ok1, lane & 3);
    }
    compute_sync();                     /* red is written again by the next tile */
}

/* ---- the three tuned kernels ---- */

/* The register-streaming GEMV (any GPU): a block walks tiles blockIdx.x, + gridDim.x, ...
 * (the grid is what stays resident); each warp keeps GEMV_UNROLL 16-byte loads of its two
 * rows in flight, and issues the next tile's first loads before it reduces the current one,
 * so the weight stream does not stop at every tile's reduction. */
template <int NT, int EPI, typename WT>
__device__ __forceinline__ void gemv_tiles(const GemvArgs &a) {
    __shared__ float red[GEMV_WARPS][NT * 4][32];
    __shared__ float rs[GEMV_NORM_ROWS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int nch = (a.K + CHUNK - 1) / CHUNK, ntiles = a.tile8 ? (a.N + 7) / 8 : (a.N + 15) / 16;
    constexpr int U = GEMV_UNROLL * PER<WT>;
    int tile = blockIdx.x, r0, r1;
    bool ok0, ok1;
    RowScales<WT> sc;
    const WT *w0, *w1;
    auto set_tile = [&](int tl) {
        r0 = tile_row<EPI>(a, tl, 0, g), r1 = tile_row<EPI>(a, tl, 1, g);
        ok0 = r0 < a.N, ok1 = r1 < a.N;
        w0 = weights<WT>(a) + (long long)(ok0 ? r0 : 0) * a.K, w1 = weights<WT>(a) + (long long)(ok1 ? r1 : 0) * a.K;
        if constexpr (INT8<WT>) sc.read(a, r0, r1, ok0, ok1);
    };
    Frag<WT> wa[U], wb[U];
    auto load = [&](int c0) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = (c0 + u * GEMV_WARPS) * CHUNK + 8 * t;
            wa[u] = wb[u] = zero_frag<WT>();
            if (k < a.K) {
                if (ok0) wa[u] = load_stream(w0 + k);
                if (ok1) wb[u] = load_stream(w1 + k);
            }
        }
    };
    set_tile(tile);
    load(warp);                         /* weights do not depend on the kernel before */
    pdl_wait();
    if (a.norm_w) norm_scales(a, rs);
    const half *xrow[NT];
    float xr[NT];
    x_rows<NT>(a, rs, g, xrow, xr);
    for (;;) {
        float c[NT][4] = {};
        for (int c0 = warp; c0 < nch; c0 += GEMV_WARPS * U) {
            if (c0 != warp) load(c0);
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int ch = c0 + u * GEMV_WARPS;
                if (ch >= nch) break;                              /* the same for the whole warp */
                chunk_mma<NT>(c, to_half8(wa[u]), to_half8(wb[u]), xrow, xr, a.norm_w, ch * CHUNK + 8 * t, a.K);
            }
        }
        const int cr0 = r0, cr1 = r1;
        const RowScales<WT> csc = sc;   /* this tile's, while sc takes the next one's */
        const bool cok0 = ok0, cok1 = ok1, more = (tile += gridDim.x) < ntiles;
        if (more) {                     /* the next tile's first loads fly during the reduction */
            set_tile(tile);
            load(warp);
        }
        if constexpr (INT8<WT>) csc.apply(c);
        tile_finish<NT, EPI>(a, c, red, cr0, cr1, cok0, cok1);
        if (!more) break;
    }
}

/* The split GEMV (B > GEMV_NORM_ROWS, any GPU, with scratch in a.part and a.counter). At
 * batch 32 the streaming kernel waits an L2 round trip for x at every chunk: its 8 warps
 * split K, so each reads every column of x, 32 rows of it, for only 16 weight rows. Warp w
 * of the streaming kernel adds chunks w, w + 8, w + 16, ... of K (chain w); here a block
 * takes one chain of 8 tiles, a tile a warp, so it needs only an eighth of x's columns,
 * which it copies into shared memory once. Each warp streams its tile's chain through a
 * ring of GEMV_SPLIT_DEPTH chunks in registers and reads x from shared memory; the chain's
 * sums go to a.part, and the warp that ends a tile's eighth chain adds the eight in the
 * streaming kernel's order and runs the epilogue. The chunks, their order and every
 * instruction on them are the streaming kernel's, so a row comes out bit for bit the same.
 * All its blocks, 8 x ceil(N / 128), are resident at once: gemv_takes_split (below) gives
 * it a launch only then. */
template <int NT, int EPI, typename WT>
__device__ __forceinline__ void gemv_split_tiles(const GemvArgs &a) {
    extern __shared__ __align__(128) unsigned char dyn_smem[];
    half *xs = (half *)dyn_smem;        /* this chain's columns of x: [chunk i][row][32] */
    constexpr int R = NT * 8, D = GEMV_SPLIT_DEPTH * PER<WT>;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int nch = (a.K + CHUNK - 1) / CHUNK, w = blockIdx.x % GEMV_WARPS;
    const int nw = (nch - w + GEMV_WARPS - 1) / GEMV_WARPS;          /* chunks in the chain (K >= 256: >= 1) */
    const int tile = blockIdx.x / GEMV_WARPS * GEMV_WARPS + warp;
    const int r0 = tile_row<EPI>(a, tile, 0, g), r1 = tile_row<EPI>(a, tile, 1, g);
    const bool live = tile < (a.N + 15) / 16;
    RowScales<WT> sc;
    if constexpr (INT8<WT>) sc.read(a, r0, r1, r0 < a.N, r1 < a.N);
    Frag<WT> wa[D], wb[D];
    auto load = [&](int d, int i) {     /* chunk i of the chain into slot d */
        const int k = (w + i * GEMV_WARPS) * CHUNK + 8 * t;
        wa[d] = wb[d] = zero_frag<WT>();
        if (live && i < nw && k < a.K) {
            if (r0 < a.N) wa[d] = load_stream(weights<WT>(a) + (long long)r0 * a.K + k);
            if (r1 < a.N) wb[d] = load_stream(weights<WT>(a) + (long long)r1 * a.K + k);
        }
    };
#pragma unroll
    for (int d = 0; d < D; d++) load(d, d);  /* weights do not depend on the kernel before */
    pdl_wait();
    for (int p = threadIdx.x; p < nw * R * 4; p += GEMV_THREADS) {   /* x's chain columns into shared memory */
        const int q = p & 3, row = (p >> 2) % R, i = (p >> 2) / R, k = (w + i * GEMV_WARPS) * CHUNK + 8 * q;
        int4 v = make_int4(0, 0, 0, 0);
        if (row < a.B && k < a.K) v = *(const int4 *)(a.x + (long long)row * a.x_stride + k);
        *(int4 *)(xs + ((i * R + row) * CHUNK + 8 * q)) = v;
    }
    __syncthreads();
    if (!live) return;                  /* a warp past the last tile: the whole warp (mma needs every lane) */
    float c[NT][4] = {};
    for (int i0 = 0; i0 < nw; i0 += D) {
#pragma unroll
        for (int d = 0; d < D; d++) {
            const int i = i0 + d, k = (w + i * GEMV_WARPS) * CHUNK + 8 * t;
            if (i >= nw) break;                                    /* the same for the whole warp */
            const int4 w0 = to_half8(wa[d]), w1 = to_half8(wb[d]);
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                int4 xv = make_int4(0, 0, 0, 0);
                if (k < a.K) xv = *(const int4 *)(xs + ((i * R + nt * 8 + g) * CHUNK + 8 * t));
                mma_chunk(c[nt], w0, w1, xv);
            }
            if (i + D < nw) load(d, i + D);
        }
    }
    /* the chain's sums, scaled (int8) like each warp's in the streaming kernel, to a.part; the
     * warp that counts the tile's eighth chain adds all eight in the streaming kernel's order
     * (0, 1, ... 7) and runs the epilogue */
    if constexpr (INT8<WT>) sc.apply(c);
    float *part = a.part + (long long)tile * GEMV_WARPS * NT * 4 * 32;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int j = 0; j < 4; j++) __stcg(part + ((w * NT + nt) * 4 + j) * 32 + lane, c[nt][j]);
    __threadfence();                    /* the sums are seen before the count that says so */
    __syncwarp();
    int done = 0;
    if (lane == 0) done = atomicAdd(&a.counter[tile], 1);
    if (__shfl_sync(0xffffffffu, done, 0) != GEMV_WARPS - 1) return;
    __threadfence();
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float sum = 0.f;
#pragma unroll
            for (int v = 0; v < GEMV_WARPS; v++) sum += __ldcg(part + ((v * NT + nt) * 4 + j) * 32 + lane);
            c[nt][j] = sum;
        }
    if (lane == 0) a.counter[tile] = 0;  /* ready for the next launch */
    EpiIn<NT> e;
    epi_read<NT, EPI>(a, e, r0, r1, r0 < a.N, r1 < a.N, t);
    gemv_epilogue<NT, EPI>(a, c, e, r0, r1, r0 < a.N, r1 < a.N, t);
}

/* The bulk-copy GEMV (sm_90), for a few rows of x (B x K x 2 bytes <= BULK_X_BYTES: every
 * decode GEMV at batch 1). Its ninth warp only loads: lane r hands the copy engine
 * (cp.async.bulk) row r of the tile, Bulk::K columns (2 KB) at a time, into a ring of RING
 * shared-memory stages that complete on mbarriers. With the full ring (GEMV_STAGES, one block
 * per SM) it keeps GEMV_INFLIGHT stages (64 KB) in flight from the kernel's first instruction
 * (before it waits for the kernel it depends on), and the ring's other slots hold stages that
 * have landed until the computing warps get to them. Not more in flight: every byte requested
 * is queued in the memory system ahead of the reads that come after it (x, the epilogue's,
 * the next kernels'), and 128 KB per SM made the step 2% slower (docs/PERF_LOG.md, v20).
 * x, normalised once, sits in shared memory beside the ring. The eight computing warps take
 * 16-byte fragments from the ring in the same order, with the same arithmetic, as the
 * streaming kernel takes them from registers, so a row comes out bit for bit the same.
 * The copy engine pays per copy: rows copied 512 B at a time streamed at 1.3 TB/s, 1 KB at
 * 2.4, 2 KB at 3.9 (lm_head; docs/PERF_LOG.md v14). So an int8 stage holds 2 KB of each
 * row too, twice the columns: the same copies and ring, twice the products per stage. */
__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t *b, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, int parity) {
    asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}"
                 ::"r"(smem_addr(b)), "r"(parity) : "memory");
}

template <int EPI, int RING, typename WT>
__device__ __forceinline__ void gemv_bulk_tiles(const GemvArgs &a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using B = Bulk<WT>;
    extern __shared__ __align__(128) unsigned char dyn_smem[];
    WT *ring = (WT *)dyn_smem;
    uint64_t *full = (uint64_t *)(ring + RING * B::STAGE), *empty = full + RING;
    half *xs = (half *)(empty + RING);  /* x [B][K], normalised */
    __shared__ float red[GEMV_WARPS][4][32];
    __shared__ float rs[GEMV_NORM_ROWS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int ntiles = (a.N + 15) / 16, nks = (a.K + B::K - 1) / B::K;
    const int stages = ((ntiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1) * nks;   /* the grid is <= ntiles */
    if (threadIdx.x == 0) {
        for (int s = 0; s < RING; s++) mbar_init(&full[s], 1), mbar_init(&empty[s], GEMV_WARPS);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    uint64_t policy;                    /* weights are read once a step: first out of L2 */
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    /* stage i of this block, by the whole loading warp: columns (i % nks) * B::K of its
     * (i / nks)-th tile, lane r < 16 copying row r (rows past N are not copied) */
    auto load_stage = [&](int i) {
        const int slot = i % RING, k0 = i % nks * B::K;
        const int n = lane < 16 ? tile_row<EPI>(a, blockIdx.x + i / nks * gridDim.x, lane >> 3, lane & 7) : a.N;
        const uint32_t bytes = min(B::K, a.K - k0) * (uint32_t)sizeof(WT);
        const int rows = __popc(__ballot_sync(0xffffffffu, n < a.N));
        if (i >= RING) mbar_wait(&empty[slot], (i / RING + 1) & 1);
        if (lane == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&full[slot])),
                         "r"(rows * bytes) : "memory");
        __syncwarp();
        if (n < a.N)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                         " [%0], [%1], %2, [%3], %4;"
                         ::"r"(smem_addr(ring + slot * B::STAGE + lane * B::ROW)), "l"(weights<WT>(a) + (long long)n * a.K + k0),
                         "r"(bytes), "r"(smem_addr(&full[slot])), "l"(policy) : "memory");
    };
    /* stages in flight: a short ring asks for its whole tile at once */
    constexpr int WANT = INT8<WT> ? GEMV_INFLIGHT_INT8 : GEMV_INFLIGHT;
    constexpr int INFLIGHT = RING < GEMV_STAGES || RING < WANT ? RING : WANT;
    if (warp == GEMV_WARPS)             /* weights do not depend on the kernel before */
        for (int i = 0; i < min(stages, INFLIGHT); i++) load_stage(i);
    EpiIn<1> early;                     /* nor, with epi_early, the first tile's epilogue inputs */
    if (a.epi_early && warp == 0) {
        const int r0 = tile_row<EPI>(a, blockIdx.x, 0, g), r1 = tile_row<EPI>(a, blockIdx.x, 1, g);
        epi_read<1, EPI>(a, early, r0, r1, r0 < a.N, r1 < a.N, t);
    }
    pdl_wait();
    if (a.norm_w) norm_scales(a, rs);
    if (warp == GEMV_WARPS) {           /* stage i once stage i - INFLIGHT has landed */
        for (int i = INFLIGHT; i < stages; i++) {
            mbar_wait(&full[(i - INFLIGHT) % RING], (i - INFLIGHT) / RING & 1);
            load_stage(i);
        }
        return;
    }
    for (int i = threadIdx.x * 8; i < a.B * a.K; i += GEMV_THREADS * 8) {   /* x into shared memory, normalised */
        const int b = i / a.K, k = i % a.K;
        int4 v = *(const int4 *)(a.x + (long long)b * a.x_stride + k);
        if (a.norm_w) rms_apply8(v, rs[b], *(const int4 *)(a.norm_w + k));
        *(int4 *)(xs + i) = v;
    }
    compute_sync();
    const half *xrow[1] = {xs + min(g, a.B - 1) * a.K};
    const float xr[1] = {0.f};
    for (int i = 0; i < stages;) {
        const int tile = blockIdx.x + i / nks * gridDim.x;
        const int r0 = tile_row<EPI>(a, tile, 0, g), r1 = tile_row<EPI>(a, tile, 1, g);
        RowScales<WT> sc;
        if constexpr (INT8<WT>) sc.read(a, r0, r1, r0 < a.N, r1 < a.N);
        float c[1][4] = {};
        for (int ks = 0; ks < nks; ks++, i++) {
            const int slot = i % RING;
            const WT *st = ring + slot * B::STAGE + 8 * t;
            mbar_wait(&full[slot], i / RING & 1);
#pragma unroll
            for (int j = 0; j < B::K / CHUNK / GEMV_WARPS; j++) {
                const int ch = warp + j * GEMV_WARPS, k = ks * B::K + ch * CHUNK + 8 * t;
                if (k - 8 * t >= a.K) break;                       /* the same for the whole warp */
                Frag<WT> w0 = zero_frag<WT>(), w1 = w0;
                if (k < a.K) {
                    w0 = *(const Frag<WT> *)(st + g * B::ROW + ch * CHUNK);
                    w1 = *(const Frag<WT> *)(st + (g + 8) * B::ROW + ch * CHUNK);
                }
                chunk_mma<1>(c, to_half8(w0), to_half8(w1), xrow, xr, NULL, k, a.K);
            }
            __syncwarp();
            if (lane == 0) mbar_arrive(&empty[slot]);
        }
        if constexpr (INT8<WT>) sc.apply(c);
        tile_finish<1, EPI>(a, c, red, r0, r1, r0 < a.N, r1 < a.N, a.epi_early && tile == (int)blockIdx.x ? &early : NULL);
    }
#else
    __trap();                           /* compiled for an older GPU: the host must not pick it (gemv_has_bulk) */
#endif
}

/* ---- the four kernels declared at the top: one body, the epilogue in the name ---- */
template <int NT, int EPI, int RING, typename WT>
__device__ __forceinline__ void gemv_body(const GemvArgs &a) {
    if constexpr (RING > 0) gemv_bulk_tiles<EPI, RING, WT>(a);
    else if constexpr (RING == SPLIT) gemv_split_tiles<NT, EPI, WT>(a);
    else gemv_tiles<NT, EPI, WT>(a);
}
template <int NT, int RING, typename WT>
__global__ void GEMV_BOUNDS gemv_qkv_rope_append(GemvArgs a) { gemv_body<NT, EPI_QKV_ROPE, RING, WT>(a); }
template <int NT, int RING, typename WT>
__global__ void GEMV_BOUNDS gemv_residual(GemvArgs a) { gemv_body<NT, EPI_RESIDUAL, RING, WT>(a); }
template <int NT, int RING, typename WT>
__global__ void GEMV_BOUNDS gemv_gate_up_silu(GemvArgs a) { gemv_body<NT, EPI_SILU_MUL, RING, WT>(a); }
template <int NT, int RING, typename WT>
__global__ void GEMV_BOUNDS gemv_lm_head(GemvArgs a) { gemv_body<NT, EPI_STORE, RING, WT>(a); }
#undef GEMV_BOUNDS

/* ---- the launch ---- */

/* One launch of one kernel. The streaming kernel's grid is what stays resident (the blocks
 * walk the tiles); a matrix whose 8-row tiles all fit in it (o_proj and down_proj: 256 tiles
 * of 8 on an H200's 264 blocks) is cut that way when its epilogue allows (store, residual), so
 * that twice the warps stream it. The bulk kernel takes 16-row tiles: with a full ring
 * (GEMV_STAGES) one block per SM walks them; with a short one every tile has its own block
 * (see gemv_plan). A row's arithmetic is the same either way. */
template <int NT, int EPI, int RING, typename WT>
static void gemv_launch(cudaStream_t s, int pdl, Part part, int layer, GemvArgs a) {
    void (*kernel)(GemvArgs) = EPI == EPI_QKV_ROPE ? gemv_qkv_rope_append<NT, RING, WT>
                               : EPI == EPI_RESIDUAL ? gemv_residual<NT, RING, WT>
                               : EPI == EPI_SILU_MUL ? gemv_gate_up_silu<NT, RING, WT>
                                                     : gemv_lm_head<NT, RING, WT>;
    static const char *const names[2][4] = {   /* [int8][EPI] */
        {"gemv_lm_head", "gemv_residual", "gemv_gate_up_silu", "gemv_qkv_rope_append"},
        {"gemv_lm_head_int8", "gemv_residual_int8", "gemv_gate_up_silu_int8", "gemv_qkv_rope_append_int8"}};
    const char *name = names[INT8<WT>][EPI];
    const int threads = RING > 0 ? (int)BULK_THREADS : (int)GEMV_THREADS;
    static int resident = 0;            /* this kernel's blocks that fit on the GPU at once */
    static int least = 0;               /* the fewest bytes a short-ring block asks for (see SHORT_RING) */
    if (!resident) {
        if (RING > 0 && RING < GEMV_STAGES) {
            cudaFuncAttributes fa;
            CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
            least = gpu_smem_per_sm() / 3 - gpu_smem_reserved() - (int)fa.sharedSizeBytes + 1;
        }
        const int smem_max = RING > 0 ? max(bulk_smem_bytes<WT>(RING, BULK_X_BYTES), least) : RING == SPLIT ? SPLIT_SMEM_MAX : 0;
        int per_sm;
        if (RING > 0) CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
        per_sm = gpu_blocks_per_sm((const void *)kernel, threads, smem_max);
        if (per_sm < 1) die("gemv: %s does not fit on an SM (%d bytes of shared memory)", name, smem_max);
        resident = RING == GEMV_STAGES ? gpu_sm_count() : gpu_sm_count() * per_sm;
    }
    const int tiles8 = (a.N + 7) / 8, tiles16 = (a.N + 15) / 16;
    if (RING == SPLIT) {                /* all resident (gemv_takes_split checked it with one kernel for all) */
        const int blocks = split_blocks(a.N);
        if (blocks > resident) die("gemv: %s: %d split blocks for %d resident (a bug in gemv_takes_split)", name, blocks, resident);
        LAUNCH_PDL(pdl, part, layer, name, kernel, blocks, threads, split_smem_bytes(NT, a.K), s, a);
        return;
    }
    const int smem = RING ? max(bulk_smem_bytes<WT>(RING, a.B * a.K * (int)sizeof(half)), least) : 0;
    a.tile8 = !RING && GEMV_TILE8 && (EPI == EPI_STORE || EPI == EPI_RESIDUAL) && tiles8 <= resident;
    const int tiles = a.tile8 ? tiles8 : tiles16, cap = RING ? resident : GEMV_GRID_WAVES * resident;
    if (RING && RING < GEMV_STAGES && tiles > resident) die("gemv: %s: %d tiles for %d blocks (a bug in gemv_plan)", name, tiles, resident);
    LAUNCH_PDL(pdl, part, layer, name, kernel, tiles < cap ? tiles : cap, threads, smem, s, a);
}

template <int NT, int RING, typename WT>
static void launch_epi(cudaStream_t s, int pdl, Part part, int layer, int epi, const GemvArgs &a) {
    switch (epi) {
    case EPI_QKV_ROPE: gemv_launch<NT, EPI_QKV_ROPE, RING, WT>(s, pdl, part, layer, a); break;
    case EPI_RESIDUAL: gemv_launch<NT, EPI_RESIDUAL, RING, WT>(s, pdl, part, layer, a); break;
    case EPI_SILU_MUL: gemv_launch<NT, EPI_SILU_MUL, RING, WT>(s, pdl, part, layer, a); break;
    default: gemv_launch<NT, EPI_STORE, RING, WT>(s, pdl, part, layer, a); break;
    }
}

/* The plan's numbers as template arguments: WT (k_gemv), NT and RING (below), EPI (launch_epi) */
template <typename WT, int NT>
static void launch_nt(cudaStream_t s, int pdl, Part part, int layer, int epi, GemvPlan p, const GemvArgs &a) {
    if constexpr (NT == 1) {
        if (p.kernel == G_BULK) {
            if (p.ring == SHORT_RING) launch_epi<1, SHORT_RING, WT>(s, pdl, part, layer, epi, a);
            else launch_epi<1, GEMV_STAGES, WT>(s, pdl, part, layer, epi, a);
            return;
        }
    } else if (p.kernel == G_SPLIT) {
        launch_epi<NT, SPLIT, WT>(s, pdl, part, layer, epi, a);
        return;
    }
    launch_epi<NT, 0, WT>(s, pdl, part, layer, epi, a);
}
template <typename WT>
static void launch_plan(cudaStream_t s, int pdl, Part part, int layer, int epi, GemvPlan p, const GemvArgs &a) {
    switch (p.nt) {
    case 1: launch_nt<WT, 1>(s, pdl, part, layer, epi, p, a); break;
    case 2: launch_nt<WT, 2>(s, pdl, part, layer, epi, p, a); break;
    case 3: launch_nt<WT, 3>(s, pdl, part, layer, epi, p, a); break;
    default: launch_nt<WT, 4>(s, pdl, part, layer, epi, p, a); break;
    }
}

/* the plain kernel: a warp a pair of rows, 8 pairs a block; without programmatic dependent
 * launch (it does not wait for the kernel before inside: it starts after it) */
static void launch_plain(cudaStream_t s, Part part, int layer, int epi, const GemvArgs &a) {
    const int blocks = (a.N + 15) / 16;       /* (N + 15) / 16 x 8 pairs, GEMV_WARPS of them a block */
    switch (epi) {
    case EPI_QKV_ROPE: LAUNCH(part, layer, "gemv_plain", gemv_plain<EPI_QKV_ROPE>, blocks, GEMV_THREADS, 0, s, a); break;
    case EPI_RESIDUAL: LAUNCH(part, layer, "gemv_plain", gemv_plain<EPI_RESIDUAL>, blocks, GEMV_THREADS, 0, s, a); break;
    case EPI_SILU_MUL: LAUNCH(part, layer, "gemv_plain", gemv_plain<EPI_SILU_MUL>, blocks, GEMV_THREADS, 0, s, a); break;
    default: LAUNCH(part, layer, "gemv_plain", gemv_plain<EPI_STORE>, blocks, GEMV_THREADS, 0, s, a); break;
    }
}
