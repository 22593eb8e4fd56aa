/* The decode GEMV: y = W x for B <= 32 rows of x, W [N][K] fp16 read once for all of them.
 * A decode step is this kernel streaming 2.2 GB of weights, so it is built for bandwidth:
 *   - a block works on tiles of 16 output rows (8 where 16 would leave resident blocks idle,
 *     see gemv_plan; a resident grid walks all of them, the next tile's loads in flight while
 *     the last one is reduced); its 8 warps split K, each lane streams 16-byte
 *     loads of two rows (GEMV_UNROLL loads of each in flight, the first issued before the kernel
 *     waits for the one before it: programmatic dependent launch);
 *   - tensor cores do the arithmetic (mma m16n8k16, fp32 accumulation; m16n8k8 on sm_75):
 *     the 16 rows are the A operand, up to 8 rows of x the B operand, so B = 1 costs the
 *     same instructions as B = 8 and every weight is used for all rows at once. K is read
 *     in a permuted order (lane t of a quad holds k 8t..8t+7 of a 32-wide chunk, in W and x
 *     alike), which keeps every load 16 bytes wide and leaves the sum unchanged;
 *   - the split over warps is added in a fixed order, and a row of x meets the same
 *     instructions whatever B is, so its result is bit for bit the same at any batch size.
 * The neighbours it fuses:
 *   prologue  RMSNorm of x (B <= GEMV_NORM_ROWS; beyond that the caller runs rmsnorm, which
 *             does the same arithmetic)
 *   epilogue  EPI_QKV_ROPE  tile rows i and i + head_dim/2 of a head: RoPE on q and k, k and
 *                           v straight into the KV cache
 *             EPI_SILU_MUL  tile rows gate i and up i: silu(gate) * up
 *             EPI_RESIDUAL  h += y (o_proj, down_proj)
 *             EPI_STORE     y (lm_head) */
#include <stdint.h>
#include "kernels.cuh"
#include "gpu.h"
#include "launch.h"

/* 8 warps of 32 lanes split K (the norm prologue's order assumes 256 threads); each lane
 * keeps GEMV_UNROLL 16-byte loads of each of its two rows in flight; GEMV_MIN_BLOCKS caps the
 * registers so that many blocks stay resident per SM (tunable with -D; tests/gpu/PERF_LOG.md) */
#ifndef GEMV_UNROLL
#define GEMV_UNROLL 4
#endif
#ifndef GEMV_MIN_BLOCKS
#define GEMV_MIN_BLOCKS 2
#endif
enum { GEMV_THREADS = 256, GEMV_WARPS = 8, CHUNK = 32 };

/* c[4] += A (16 x 8k, rows g and g+8 of this lane in w0, w1) * B (8k x 8 cols) for one
 * 32-wide k chunk: the lane holds k 8t..8t+7 of rows g (w0), g+8 (w1) and x row g (x) */
__device__ __forceinline__ void mma_chunk(float (&c)[4], int4 w0, int4 w1, int4 x) {
    mma16816(c, w0.x, w1.x, w0.y, w1.y, x.x, x.y);
    mma16816(c, w0.z, w1.z, w0.w, w1.w, x.z, x.w);
}

/* weights are streamed once per step: keep them out of L1 */
__device__ __forceinline__ int4 load_stream(const half *p) { return __ldcs((const int4 *)p); }

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

/* the epilogue of one tile: lane (g, t) holds rows r0 (c0, c1) and r1 (c2, c3) for x rows
 * 2t and 2t + 1 of each 8-row group */
template <int NT, int EPI>
__device__ __forceinline__ void gemv_epilogue(const GemvArgs &a, const float (&c)[NT][4], int r0, int r1, bool ok0,
                                              bool ok1, int t) {
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const int b = nt * 8 + 2 * t + j;
            if (b >= a.B) continue;
            half y0 = f16(c[nt][j]), y1 = f16(c[nt][2 + j]);
            half *y = a.y + (long long)b * a.y_stride;
            if (EPI == EPI_STORE) {
                if (ok0) y[r0] = y0;
                if (ok1) y[r1] = y1;
            } else if (EPI == EPI_RESIDUAL) {
                if (ok0) y[r0] = f16(f32(y[r0]) + f32(y0));
                if (ok1) y[r1] = f16(f32(y[r1]) + f32(y1));
            } else if (EPI == EPI_SILU_MUL) {
                y[r0] = f16(f32(f16(silu_f(f32(y0)))) * f32(y1));
            } else {                                          /* EPI_QKV_ROPE */
                const int hh = a.hd / 2, head = r0 / a.hd, i = r0 % a.hd, pos = a.pos[b];
                if (head < a.nh + a.nkv) rope_pair(y0, y1, a.cos_t[pos * hh + i], a.sin_t[pos * hh + i]);
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
}

/* A block walks tiles blockIdx.x, + gridDim.x, ... (the grid is what stays resident), and
 * issues the next tile's first loads before it reduces and stores the current one, so the
 * weight stream does not stop at every tile's reduction. */
template <int NT, int EPI>
__device__ __forceinline__ void gemv_tiles(const GemvArgs &a) {
    __shared__ float red[GEMV_WARPS][NT * 4][32];
    __shared__ float rs[GEMV_NORM_ROWS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int nch = (a.K + CHUNK - 1) / CHUNK, ntiles = a.tile8 ? (a.N + 7) / 8 : (a.N + 15) / 16;
    int tile = blockIdx.x, r0, r1;
    bool ok0, ok1;
    const half *w0, *w1;
    auto set_tile = [&](int tl) {
        r0 = tile_row<EPI>(a, tl, 0, g), r1 = tile_row<EPI>(a, tl, 1, g);
        ok0 = r0 < a.N, ok1 = r1 < a.N;
        w0 = a.w + (long long)(ok0 ? r0 : 0) * a.K, w1 = a.w + (long long)(ok1 ? r1 : 0) * a.K;
    };
    int4 wa[GEMV_UNROLL], wb[GEMV_UNROLL];
    auto load = [&](int c0) {
#pragma unroll
        for (int u = 0; u < GEMV_UNROLL; u++) {
            const int k = (c0 + u * GEMV_WARPS) * CHUNK + 8 * t;
            wa[u] = wb[u] = make_int4(0, 0, 0, 0);
            if (k < a.K) {
                if (ok0) wa[u] = load_stream(w0 + k);
                if (ok1) wb[u] = load_stream(w1 + k);
            }
        }
    };
    set_tile(tile);
    pdl_launch_dependents();
    load(warp);                         /* weights do not depend on the kernel before */
    pdl_wait();
    if (a.norm_w) {                     /* RMSNorm scale of each row of x, as rmsnorm does it */
        float ss[GEMV_NORM_ROWS];
#pragma unroll
        for (int b = 0; b < GEMV_NORM_ROWS; b++) ss[b] = b < a.B ? row_sumsq(a.x + (long long)b * a.x_stride, a.K) : 0.f;
        block_sums<GEMV_NORM_ROWS>(ss);
        if (threadIdx.x < GEMV_NORM_ROWS) rs[threadIdx.x] = rms_scale(ss[threadIdx.x], a.K, a.eps);
        __syncthreads();
    }
    const half *xrow[NT];
    float xr[NT];
#pragma unroll
    for (int nt = 0; nt < NT; nt++) {
        const int b = min(nt * 8 + g, a.B - 1);
        xrow[nt] = a.x + (long long)b * a.x_stride;
        xr[nt] = a.norm_w ? rs[b < GEMV_NORM_ROWS ? b : 0] : 0.f;
    }
    for (;;) {
        float c[NT][4];
#pragma unroll
        for (int nt = 0; nt < NT; nt++) c[nt][0] = c[nt][1] = c[nt][2] = c[nt][3] = 0.f;
        for (int c0 = warp; c0 < nch; c0 += GEMV_WARPS * GEMV_UNROLL) {
            if (c0 != warp) load(c0);
#pragma unroll
            for (int u = 0; u < GEMV_UNROLL; u++) {
                const int ch = c0 + u * GEMV_WARPS, k = ch * CHUNK + 8 * t;
                if (ch >= nch) break;                              /* the same for the whole warp */
                int4 nw = make_int4(0, 0, 0, 0);
                if (a.norm_w && k < a.K) nw = *(const int4 *)(a.norm_w + k);
#pragma unroll
                for (int nt = 0; nt < NT; nt++) {
                    int4 xv = make_int4(0, 0, 0, 0);
                    if (k < a.K) xv = *(const int4 *)(xrow[nt] + k);
                    if (a.norm_w) {
                        half *xh = (half *)&xv;
                        const half *wh = (const half *)&nw;
#pragma unroll
                        for (int i = 0; i < 8; i++) xh[i] = rms_apply(xh[i], xr[nt], wh[i]);
                    }
                    mma_chunk(c[nt], wa[u], wb[u], xv);
                }
            }
        }
        const int cr0 = r0, cr1 = r1;
        const bool cok0 = ok0, cok1 = ok1, more = (tile += gridDim.x) < ntiles;
        if (more) {                     /* the next tile's first loads fly during the reduction */
            set_tile(tile);
            load(warp);
        }
        /* add the warps' partial sums in a fixed order */
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int j = 0; j < 4; j++) red[warp][nt * 4 + j][lane] = c[nt][j];
        __syncthreads();
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
            gemv_epilogue<NT, EPI>(a, c, cr0, cr1, cok0, cok1, t);
        }
        if (!more) break;
        __syncthreads();                /* red is written again by the next tile */
    }
}

/* one kernel name per job, so a profile says what ran */
template <int NT> __global__ void __launch_bounds__(GEMV_THREADS, GEMV_MIN_BLOCKS) gemv_qkv_rope_append(GemvArgs a) {
    gemv_tiles<NT, EPI_QKV_ROPE>(a);
}
template <int NT> __global__ void __launch_bounds__(GEMV_THREADS, GEMV_MIN_BLOCKS) gemv_residual(GemvArgs a) {
    gemv_tiles<NT, EPI_RESIDUAL>(a);
}
template <int NT> __global__ void __launch_bounds__(GEMV_THREADS, GEMV_MIN_BLOCKS) gemv_gate_up_silu(GemvArgs a) {
    gemv_tiles<NT, EPI_SILU_MUL>(a);
}
template <int NT> __global__ void __launch_bounds__(GEMV_THREADS, GEMV_MIN_BLOCKS) gemv_lm_head(GemvArgs a) {
    gemv_tiles<NT, EPI_STORE>(a);
}

/* the grid: every tile, or at most GEMV_GRID_WAVES x the blocks that stay resident
 * (GEMV_BLOCKS_PER_SM of them per SM when set, else as many as fit) */
#ifndef GEMV_GRID_WAVES
#define GEMV_GRID_WAVES 1
#endif
#ifndef GEMV_BLOCKS_PER_SM
#define GEMV_BLOCKS_PER_SM 0
#endif
#ifndef GEMV_TILE8
#define GEMV_TILE8 1                    /* 8-row tiles where 16-row ones leave blocks idle (v11) */
#endif
template <typename K>
static int gemv_grid(K kernel, int tiles) {
    static int resident = 0;            /* one per kernel instantiation */
    if (!resident) {
        int dev, sms, per_sm;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, GEMV_THREADS, 0));
        if (GEMV_BLOCKS_PER_SM > 0 && GEMV_BLOCKS_PER_SM < per_sm) per_sm = GEMV_BLOCKS_PER_SM;
        resident = sms * (per_sm > 0 ? per_sm : 1);
    }
    return tiles < GEMV_GRID_WAVES * resident ? tiles : GEMV_GRID_WAVES * resident;
}

/* the grid for this GEMV. A matrix whose 8-row tiles all fit in the resident blocks (o_proj
 * and down_proj: 256 tiles of 8 on an H200's 264 blocks) is cut that way when its epilogue
 * allows (store, residual), so that twice the warps stream it; else into 16-row tiles. A
 * row's arithmetic is the same either way. */
template <typename K>
static int gemv_plan(K kernel, int epi, GemvArgs *a) {
    const int tiles8 = (a->N + 7) / 8;
    a->tile8 = GEMV_TILE8 && (epi == EPI_STORE || epi == EPI_RESIDUAL) && gemv_grid(kernel, tiles8 + 1) > tiles8;
    return gemv_grid(kernel, a->tile8 ? tiles8 : (a->N + 15) / 16);
}

/* gemv_plan sets a.tile8 first, then the kernel gets its copy of a */
#define GEMV_LAUNCH(name, kernel)                                                   \
    {                                                                               \
        const int grid = gemv_plan(kernel, epi, &a);                                \
        LAUNCH_PDL(pdl, part, layer, name, kernel, grid, GEMV_THREADS, 0, s, a);    \
    }
template <int NT>
static void launch_nt(cudaStream_t s, int pdl, Part part, int layer, int epi, GemvArgs a) {
    switch (epi) {
    case EPI_QKV_ROPE: GEMV_LAUNCH("gemv_qkv_rope_append", gemv_qkv_rope_append<NT>); break;
    case EPI_RESIDUAL: GEMV_LAUNCH("gemv_residual", gemv_residual<NT>); break;
    case EPI_SILU_MUL: GEMV_LAUNCH("gemv_gate_up_silu", gemv_gate_up_silu<NT>); break;
    default: GEMV_LAUNCH("gemv_lm_head", gemv_lm_head<NT>); break;
    }
}
#undef GEMV_LAUNCH

void k_gemv(cudaStream_t s, int pdl, Part part, int layer, int epi, const GemvArgs *a) {
    if (a->B < 1 || a->B > GEMV_MAX_ROWS || (a->norm_w && a->B > GEMV_NORM_ROWS) || a->K % 8 ||
        (epi == EPI_QKV_ROPE && a->hd % 16) || ((epi == EPI_QKV_ROPE || epi == EPI_SILU_MUL) && a->N % 16))
        die("gemv: %d rows of K=%d, N=%d are outside what it handles (B <= %d, <= %d with the norm; K %% 8 = 0)",
            a->B, a->K, a->N, GEMV_MAX_ROWS, GEMV_NORM_ROWS);
    switch ((a->B + 7) / 8) {
    case 1: launch_nt<1>(s, pdl, part, layer, epi, *a); break;
    case 2: launch_nt<2>(s, pdl, part, layer, epi, *a); break;
    case 3: launch_nt<3>(s, pdl, part, layer, epi, *a); break;
    default: launch_nt<4>(s, pdl, part, layer, epi, *a); break;
    }
}
