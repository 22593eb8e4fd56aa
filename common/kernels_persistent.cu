/* The persistent decode step: the whole step in one kernel, one block on every SM.
 *
 * Why. After CUDA graphs the fused step is 113 kernels and the host is out of the way, yet
 * the H200 runs it at about 1.8x the bandwidth floor (tests/gpu/PERF_LOG.md, v22). What is
 * left is each kernel's fixed cost: its first weights arrive a DRAM round trip after it
 * starts, its last products and epilogue run while the DRAM idles, and the next kernel waits
 * for its slowest block. 2 to 4 us a GEMV, four GEMVs a layer, 22 layers: 0.3 ms a step.
 * A kernel boundary is a barrier over the whole GPU. This kernel has none.
 *
 * How. Every block walks the same list of ops (embed; per layer qkv, attention, o, gate/up,
 * down; lm_head with argmax) and takes its share of each: GEMV tile t goes to block
 * (t + rot) % blocks, rot moving on with each op so the extra tiles land on other blocks.
 *   - The weights depend on nothing, so they never wait: the block's 17th warp walks the
 *     same list as the other 16 and has the copy engine (cp.async.bulk, 2 KB of a row a copy)
 *     fill a ring of shared-memory stages of 16 weight rows x 1024 columns, each completing on
 *     an mbarrier, as soon as a slot is free. While the computing warps wait for an op's
 *     inputs, the ring fills with that op's weights: the DRAM does not idle at a boundary.
 *   - A tile waits only for the tiles it reads, through counters in global memory that the
 *     producing tiles increment (a release: __threadfence, then atomicAdd) and the consumer's
 *     thread 0 polls (ld.acquire). An attention head waits for the qkv tiles of its q, k and
 *     v heads alone; o_proj's and down_proj's columns 512 at a time wait for the heads or the
 *     gate/up tiles that wrote those columns; qkv, gate/up and lm_head wait for the whole
 *     residual, because RMSNorm divides by the root mean square of all of it.
 *   - The counters never go back to zero: step e waits for e x (the tiles a step adds), with
 *     e the step's number, or, where a step adds a unit per row (embed, attention), for the
 *     rows of every step so far (the host counts both), so no step has to clear them.
 *   - Data written in this step by other blocks is read from L2 (__ldcg): an SM's L1 is not
 *     coherent and may still hold a line from a layer before.
 *
 * The order of every sum is fixed, so a token comes out with the same bits every run: a
 * tile's 16 computing warps each own the same 64 columns of every stage, their sums are added
 * warp 0 to 15 in shared memory; RMSNorm's sum of squares is the fused GEMV's (same threads, same
 * tree); attention adds its keys in a fixed split over the threads; argmax keeps the lowest
 * index over tiles read in order. No float atomics anywhere.
 *
 * Deadlock. A block that spins waits for blocks that must be running: all blocks are
 * launched together with cudaLaunchCooperativeKernel, which fails rather than start fewer
 * than asked, and the host asks for one block an SM only after the occupancy calculator
 * says one fits (gpu_model.cu refuses the mode with a sentence otherwise).
 *
 * Where it runs: code for sm_90 (bulk copies, mbarriers' transaction counts), fp16 weights, at most
 * PERSIST_MAX_ROWS rows of x (the block keeps each op's x in shared memory). Elsewhere the
 * mode is refused, never approximated. The four modes the lessons teach do not use it.
 *
 * What it measured (H200, tests/gpu/PERF_LOG.md v24): 1.31 ms a token at batch 1, against
 * graph mode's 0.84. One kernel is not by itself a faster step. Its in-kernel trace
 * (bin/bench --profile, persist_trace) shows the copy engine keeping ahead of the arithmetic.
 * The time goes where the kernel boundaries' cost used to be: each op waits for its slowest
 * inputs, and every dependent read (x, the embedding row, a release) queues behind the ring's
 * requests. It also goes to the tile ends. What v18 found holds: the boundaries were never the
 * cost, the chain of each op's slowest block is. */
#include <stdint.h>
#include "kernels.cuh"
#include "gpu.h"
#include "launch.h"

/* 16 computing warps, one copy warp; a stage is 16 weight rows x KS columns, a row ROW halves
 * apart (2 KB + 64 bytes: rows g and g + 1 of a quarter warp's reads fall in other banks);
 * x rows the same. The copy warp keeps PERSIST_INFLIGHT stages in flight (the fused GEMV's
 * best, v20; here 2, 3, 4 and 6 gave the same step, v24), the rest of the ring holds stages
 * that landed. */
#ifndef PERSIST_INFLIGHT
#define PERSIST_INFLIGHT 2
#endif
enum { CT = PERSIST_THREADS, CW = CT / 32, KS = PERSIST_STAGE_COLS, ROW = KS + 32, STAGE = 16 * ROW };
static_assert(CW * 64 == KS, "each computing warp owns 64 columns of a stage");

/* the five GEMVs of a step, in order: per layer qkv, o, gate/up, down; then lm_head */
enum { G_QKV, G_O, G_GU, G_DOWN, G_LM };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PERSIST_CODE 1
#else
#define PERSIST_CODE 0
#endif

__device__ __forceinline__ uint32_t saddr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
/* the computing warps' barrier (the copy warp never joins it) */
__device__ __forceinline__ void csync(void) { asm volatile("bar.sync 1, %0;" ::"r"(CT) : "memory"); }
__device__ __forceinline__ uint32_t ld_acquire(const uint32_t *p) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
/* thread 0 waits until *ctr reaches target (mod 2^32), then the computing warps go on: an
 * acquire, then the barrier (CUTLASS's semaphore does the same) */
__device__ __forceinline__ void wait_count(const uint32_t *ctr, uint32_t target) {
    if (threadIdx.x == 0)
        while ((int)(ld_acquire(ctr) - target) < 0) {
        }
    csync();
}
/* everything the computing warps wrote is visible before the counter moves by n (the barrier,
 * then a release); thread 0 gets the count it had */
__device__ __forceinline__ uint32_t signal(uint32_t *ctr, uint32_t n) {
    csync();
    uint32_t old = 0;
    if (threadIdx.x == 0) asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(ctr), "r"(n) : "memory");
    return old;
}
/* NB sums over the computing warps, in block_sums' order (a tree in each warp, then over warps) */
template <int NB>
__device__ __forceinline__ void csums(float (&v)[NB], float (*red)[32]) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int b = 0; b < NB; b++) {
        v[b] = warp_sum(v[b]);
        if (lane == 0) red[b][threadIdx.x >> 5] = v[b];
    }
    csync();
#pragma unroll
    for (int b = 0; b < NB; b++) v[b] = warp_sum(lane < CW ? red[b][lane] : 0.f);
    csync();
}
/* the in-kernel trace, per block and op i: %globaltimer at 0 before its wait, 1 after it (only
 * a block with units in the op), 2 after its last unit; SM cycles 3: its GEMV stages waited for
 * their weights, 4: in its tiles' ends (sums, epilogue, count) */
__device__ __forceinline__ void stamp(uint64_t *tr, int i, int k) {
    if (tr && threadIdx.x == 0) {
        uint64_t t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        tr[i * PERSIST_TRACE_SLOTS + k] = t;
    }
}

/* ---- what a GEMV op is: its weights, shape, tiles and which weight row a tile's slot holds ---- */
struct GOp {
    const half *w;
    int kind, layer, N, K, tiles, stages;
};
__device__ __forceinline__ GOp gop(const PersistArgs &a, int j) {
    GOp o;
    o.layer = j / 4, o.kind = j == 4 * a.n_layers ? G_LM : j % 4;
    const PersistLayer &L = a.layers[o.kind == G_LM ? 0 : o.layer];
    switch (o.kind) {
    case G_QKV: o.w = L.wqkv, o.N = a.qd + 2 * a.kvd, o.K = a.dim, o.tiles = o.N / 16; break;
    case G_O: o.w = L.wo, o.N = a.dim, o.K = a.qd, o.tiles = (a.dim + 7) / 8; break;
    case G_GU: o.w = L.wgu, o.N = 2 * a.hidden, o.K = a.dim, o.tiles = a.hidden / 8; break;
    case G_DOWN: o.w = L.wdown, o.N = a.dim, o.K = a.hidden, o.tiles = (a.dim + 7) / 8; break;
    default: o.w = a.lm_head, o.N = a.vocab, o.K = a.dim, o.tiles = (a.vocab + 15) / 16; break;
    }
    o.stages = (o.K + KS - 1) / KS;
    return o;
}
/* the weight row in slot s (0..15) of a tile, -1 if none. qkv: rows i and i + hd/2 of one
 * head in slots g and g + 8 (RoPE pairs them); gate/up: gate i in g, up i in g + 8 (silu *
 * mul pairs them); o, down: 8-row tiles (twice the tiles, so the blocks end an op closer
 * together); lm_head: 16 rows */
__device__ __forceinline__ int slot_row(const PersistArgs &a, const GOp &o, int tile, int s) {
    const int g = s & 7, h = s >> 3;
    switch (o.kind) {
    case G_QKV: {
        const int hh = a.hd / 2, per_head = hh / 8;
        return tile / per_head * a.hd + tile % per_head * 8 + g + h * hh;
    }
    case G_GU: return h * a.hidden + tile * 8 + g;
    case G_O:
    case G_DOWN: return h || tile * 8 + g >= o.N ? -1 : tile * 8 + g;
    default: return tile * 16 + s < o.N ? tile * 16 + s : -1;
    }
}
/* where op j's tile 0 goes: (tiles of every op before j) mod blocks, the same in every block */
__device__ __forceinline__ int rot_of(const PersistArgs &a, int j) {
    long long per_layer = 0, before;
    for (int k = 0; k < 4; k++) per_layer += gop(a, k).tiles;
    before = (long long)(j / 4) * per_layer;
    for (int k = 4 * (j / 4); k < j; k++) before += gop(a, k).tiles;
    return (int)(before % gridDim.x);
}

/* A block's walk over its GEMV stages: op j, tile, stage ks. The copy warp walks it stage by
 * stage, the computing warps tile by tile, the copies up to the ring ahead. */
struct Walk {
    int j, tile, ks;
    GOp o;
    __device__ __forceinline__ void settle(const PersistArgs &a) {   /* on to a tile of this block's */
        while (tile >= o.tiles && ++j <= 4 * a.n_layers)
            o = gop(a, j), tile = (int)((blockIdx.x + gridDim.x - rot_of(a, j)) % gridDim.x), ks = 0;
    }
    __device__ __forceinline__ void start(const PersistArgs &a) {
        j = 0, ks = 0, o = gop(a, 0), tile = blockIdx.x;
        settle(a);
    }
    __device__ __forceinline__ bool done(const PersistArgs &a) const { return j > 4 * a.n_layers; }
    __device__ __forceinline__ void next(const PersistArgs &a) {
        if (++ks == o.stages) next_tile(a);
    }
    __device__ __forceinline__ void next_tile(const PersistArgs &a) { ks = 0, tile += gridDim.x, settle(a); }
};

#if PERSIST_CODE
__device__ __forceinline__ void mbar_wait(uint64_t *b, int parity) {
    asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}"
                 ::"r"(saddr(b)), "r"(parity) : "memory");
}
/* the copy warp: stage i of the walk into slot i % ring once the computing warps are done
 * with what the slot held and stage i - PERSIST_INFLIGHT has landed; lane r < 16 copies row r */
__device__ void copy_warp(const PersistArgs &a, half *ring, uint64_t *full, uint64_t *empty) {
    const int lane = threadIdx.x & 31, R = a.ring_stages, inflight = R < PERSIST_INFLIGHT ? R : PERSIST_INFLIGHT;
    uint64_t policy;                    /* weights are read once a step: first out of L2 */
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    Walk w;
    w.start(a);
    for (int i = 0; !w.done(a); i++, w.next(a)) {
        const int slot = i % R, k0 = w.ks * KS, row = lane < 16 ? slot_row(a, w.o, w.tile, lane) : -1;
        const uint32_t bytes = (uint32_t)min(KS, w.o.K - k0) * 2;
        const int rows = __popc(__ballot_sync(0xffffffffu, row >= 0));
        if (i >= R) mbar_wait(&empty[slot], (i / R + 1) & 1);
        if (i >= inflight) mbar_wait(&full[(i - inflight) % R], (i - inflight) / R & 1);
        if (lane == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(&full[slot])),
                         "r"(rows * bytes) : "memory");
        __syncwarp();
        if (row >= 0)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                         " [%0], [%1], %2, [%3], %4;"
                         ::"r"(saddr(ring + slot * STAGE + lane * ROW)), "l"(w.o.w + (long long)row * w.o.K + k0),
                         "r"(bytes), "r"(saddr(&full[slot])), "l"(policy) : "memory");
    }
}
#endif

/* ---- x into shared memory: xs[b][k] for b < B, zeros past K up to the stage. Copied with
 * cp.async (through L2, never a stale L1 line), so that every piece is in flight at once: the
 * DRAM queue is full of weights, and each round trip to L2 waits behind it ---- */
__device__ __forceinline__ void x_copy(half *dst, const half *src, bool ok) {
#if PERSIST_CODE
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(saddr(dst)), "l"(src), "r"(ok ? 16 : 0) : "memory");
#endif
}
__device__ __forceinline__ void x_landed(void) {
#if PERSIST_CODE
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    csync();
}
/* columns [ks KS, ks KS + KS) of B rows of src (row stride K), asked for; x_landed() waits */
__device__ void x_cols(const PersistArgs &a, const half *src, int K, int ks, half *xs) {
    for (int p = threadIdx.x; p < a.B * KS / 8; p += CT) {
        const int b = p / (KS / 8), i = ks * KS + p % (KS / 8) * 8;
        x_copy(xs + b * a.x_stride + i, i < K ? src + (long long)b * K + i : src, i < K);
    }
}
/* RMSNorm of B rows of the residual h, the fused GEMV's prologue bit for bit: thread i of the
 * first 256 adds x[i], x[i + 256], ... and csums adds block_sums' tree */
__device__ void stage_normed(const PersistArgs &a, const half *norm_w, half *xs, float (*red)[32]) {
    const int kpad = (a.dim + KS - 1) / KS * KS;
    for (int ks = 0; ks < kpad / KS; ks++) x_cols(a, a.h, a.dim, ks, xs);
    x_landed();
    float ss[PERSIST_MAX_ROWS];
#pragma unroll
    for (int b = 0; b < PERSIST_MAX_ROWS; b++) {
        ss[b] = 0.f;
        if (b < a.B && threadIdx.x < NORM_THREADS)
            for (int i = threadIdx.x; i < a.dim; i += NORM_THREADS) {
                const float v = f32(xs[b * a.x_stride + i]);
                ss[b] = fmaf(v, v, ss[b]);
            }
    }
    csums<PERSIST_MAX_ROWS>(ss, red);
    for (int b = 0; b < a.B; b++) {
        const float r = rms_scale(ss[b], a.dim, a.eps);
        for (int i = threadIdx.x; i < a.dim; i += CT) xs[b * a.x_stride + i] = rms_apply(xs[b * a.x_stride + i], r, norm_w[i]);
    }
    csync();
}

/* the counters each op's producers add their units to */
struct Counters {
    uint32_t *embed, *qkv, *attn, *o, *gu, *down, *lm;
    int qkv_n, attn_n, gu_n;      /* per layer: one a head; one a KS-column chunk of attn, of act */
    __device__ __forceinline__ Counters(const PersistArgs &a) {
        qkv_n = a.nh + 2 * a.nkv, attn_n = (a.qd + KS - 1) / KS, gu_n = (a.hidden + KS - 1) / KS;
        embed = a.counters, qkv = embed + 1, attn = qkv + a.n_layers * qkv_n, o = attn + a.n_layers * attn_n;
        gu = o + a.n_layers, down = gu + a.n_layers * gu_n, lm = down + a.n_layers;
    }
};
long long persist_counter_count(int n_layers, int nh, int nkv, int qd, int hidden) {
    return 2 + (long long)n_layers * (nh + 2 * nkv + (qd + KS - 1) / KS + 2 + (hidden + KS - 1) / KS);
}

/* (v, i) the better of two candidates for argmax: the larger value, then the lower index */
__device__ __forceinline__ void better(float &v, int &i, float v2, int i2) {
    if (v2 > v || (v2 == v && i2 < i)) v = v2, i = i2;
}
/* the step's tokens from every lm_head tile's best, by the block that finished the last tile */
__device__ void pick_tokens(const PersistArgs &a, int tiles, float *scratch) {
    for (int b = 0; b < a.B; b++) {
        float v = -INFINITY;
        int i = 0x7fffffff;
        for (int t = threadIdx.x; t < tiles; t += CT)
            better(v, i, __ldcg(a.best_v + (long long)b * tiles + t), __ldcg(a.best_i + (long long)b * tiles + t));
        for (int o = 16; o > 0; o >>= 1) better(v, i, __shfl_xor_sync(0xffffffffu, v, o), __shfl_xor_sync(0xffffffffu, i, o));
        if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v, ((int *)scratch)[32 + (threadIdx.x >> 5)] = i;
        csync();
        if (threadIdx.x == 0) {
            for (int w = 1; w < CW; w++) better(v, i, scratch[w], ((int *)scratch)[32 + w]);
            a.tok[b] = i == 0x7fffffff ? 0 : i;
            a.pos[b] += 1;
        }
        csync();
    }
}

/* What the epilogue of thread (g, b) < 8 B reads, read when its tile starts, so that its round
 * trip is not on the tile's path: the residual h[b][row g] (o, down: written two ops before,
 * which every op between waited for), or row b's position and its cos and sin (qkv) */
struct EpiIn {
    half res, cs, sn;
    int pos;
};
__device__ __forceinline__ EpiIn epi_read(const PersistArgs &a, const GOp &o, int tile) {
    EpiIn e = {};
    if (threadIdx.x < 8 * a.B) {
        const int g = threadIdx.x / a.B, b = threadIdx.x % a.B, r0 = slot_row(a, o, tile, g);
        if ((o.kind == G_O || o.kind == G_DOWN) && r0 >= 0) e.res = __ldcg(a.h + (long long)b * a.dim + r0);
        if (o.kind == G_QKV) {
            const int hh = a.hd / 2, i = r0 % a.hd;
            e.pos = __ldcg(a.pos + b), e.cs = a.cos_t[e.pos * hh + i], e.sn = a.sin_t[e.pos * hh + i];
        }
    }
    return e;
}

/* ---- one GEMV tile's end: its 16 warps' sums added in order, then the epilogue for every
 * (slot pair g, g + 8; row b of x), then the tile counted ---- */
__device__ void tile_end(const PersistArgs &a, const GOp &o, int tile, const float (&c)[4], const EpiIn &ep,
                         float *red, float *ys, const Counters &ct) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int e = 0; e < 4; e++) red[(warp * 32 + lane) * 4 + e] = c[e];
    csync();
    if (threadIdx.x < 8 * a.B) {
        const int g = threadIdx.x / a.B, b = threadIdx.x % a.B, from = (g * 4 + b / 2) * 4 + (b & 1);
        float y0f = 0.f, y1f = 0.f;
        for (int w = 0; w < CW; w++) y0f += red[w * 128 + from], y1f += red[w * 128 + from + 2];
        half y0 = f16(y0f), y1 = f16(y1f);
        const int r0 = slot_row(a, o, tile, g), r1 = slot_row(a, o, tile, g + 8);
        if (o.kind == G_QKV) {
            const int hh = a.hd / 2, head = r0 / a.hd, i = r0 % a.hd, pos = ep.pos;
            if (head < a.nh + a.nkv) rope_pair(y0, y1, ep.cs, ep.sn);
            half *d;
            if (head < a.nh) d = a.q + (long long)b * a.qd + head * a.hd;
            else {
                const bool is_k = head < a.nh + a.nkv;
                const int kvh = head - a.nh - (is_k ? 0 : a.nkv);
                d = (is_k ? a.kc : a.vc) + o.layer * a.kv_layer + (((long long)b * a.nkv + kvh) * a.max_seq + pos) * a.hd;
            }
            d[i] = y0, d[i + hh] = y1;
        } else if (o.kind == G_GU) {
            a.act[(long long)b * a.hidden + r0] = f16(f32(f16(silu_f(f32(y0)))) * f32(y1));
        } else if (o.kind == G_O || o.kind == G_DOWN) {
            if (r0 >= 0) a.h[(long long)b * a.dim + r0] = f16(f32(ep.res) + f32(y0));
        } else {
            if (r0 >= 0) a.logits[(long long)b * a.vocab + r0] = y0;
            if (r1 >= 0) a.logits[(long long)b * a.vocab + r1] = y1;
            ys[g * PERSIST_MAX_ROWS + b] = r0 >= 0 ? f32(y0) : -INFINITY;
            ys[(g + 8) * PERSIST_MAX_ROWS + b] = r1 >= 0 ? f32(y1) : -INFINITY;
        }
    }
    if (o.kind == G_LM) {       /* the tile's first maximum of each row, for argmax */
        csync();
        if (threadIdx.x < a.B) {
            const int b = threadIdx.x;
            float best = -INFINITY;
            int idx = 0x7fffffff;
            for (int s = 0; s < 16; s++)
                if (ys[s * PERSIST_MAX_ROWS + b] > best) best = ys[s * PERSIST_MAX_ROWS + b], idx = tile * 16 + s;
            a.best_v[(long long)b * o.tiles + tile] = best, a.best_i[(long long)b * o.tiles + tile] = idx;
        }
    }
    /* qkv's heads are waited for tile by tile; the other ops count their tiles once a block is
     * done with the op (op_end): a release waits for the block's writes to reach L2, about a
     * microsecond while the DRAM queue is full of weights (tests/gpu/PERF_LOG.md, v24) */
    if (o.kind == G_QKV) signal(ct.qkv + o.layer * ct.qkv_n + slot_row(a, o, tile, 0) / a.hd, 1);
    else csync();               /* red and ys are read: the next tile may write them */
}
/* a block done with its `mine` tiles of op j (not qkv) counts them; the step's last lm_head
 * tile picks the tokens */
__device__ void op_end(const PersistArgs &a, const GOp &o, int j, uint32_t mine, float *red, float *ys,
                       const Counters &ct) {
    if (o.kind == G_QKV) return;
    if (o.kind == G_GU) {       /* each of its tiles into its KS columns' counter, after one fence */
        csync();
        if (threadIdx.x == 0) {
            __threadfence();
            for (int t = (int)((blockIdx.x + gridDim.x - rot_of(a, j)) % gridDim.x); t < o.tiles; t += gridDim.x)
                atomicAdd(ct.gu + o.layer * ct.gu_n + t * 8 / KS, 1u);
        }
        return;
    }
    const uint32_t old = signal(o.kind == G_O ? ct.o + o.layer : o.kind == G_DOWN ? ct.down + o.layer : ct.lm, mine);
    if (o.kind == G_LM) {
        volatile int *last = (volatile int *)ys;
        if (threadIdx.x == 0) {
            *last = old + mine == a.epoch * (uint32_t)o.tiles;
            if (*last) __threadfence();
        }
        csync();
        const bool pick = *last;
        csync();
        if (pick) pick_tokens(a, o.tiles, red);
    }
}

/* ---- attention of one (row b, q head h) over keys 0..pos, fp32, the keys split over the
 * threads in a fixed way: scores in shared memory (sm: attn_floats(max_seq) floats) ---- */
static int attn_floats(int max_seq) { return 128 + CW * 128 + 64 + max_seq; }
__device__ void attend(const PersistArgs &a, int layer, int b, int h, float *sm) {
    const int hd = a.hd, kvh = h / (a.nh / a.nkv), pos = __ldcg(a.pos + b), L = pos + 1;
    const long long kv = layer * a.kv_layer + ((long long)b * a.nkv + kvh) * a.max_seq * hd;
    float *qf = sm, *part = qf + 128, *red = part + CW * 128, *sc = red + 64;
    if (threadIdx.x < hd) qf[threadIdx.x] = f32(__ldcg(a.q + (long long)b * a.qd + h * hd + threadIdx.x));
    csync();
    const float scale = rsqrtf((float)hd) * 1.4426950409f;      /* log2 units, as attn_kv */
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < L; j += CT) {
        const int4 *k = (const int4 *)(a.kc + kv + (long long)j * hd);
        float s = 0.f;
        for (int d8 = 0; d8 < hd / 8; d8++) {
            const int4 v = __ldcg(k + d8);
            const half *e = (const half *)&v;
#pragma unroll
            for (int e8 = 0; e8 < 8; e8++) s = fmaf(qf[d8 * 8 + e8], f32(e[e8]), s);
        }
        sc[j] = s * scale, mx = fmaxf(mx, s * scale);
    }
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = mx;
    csync();
    mx = -INFINITY;
    for (int w = 0; w < CW; w++) mx = fmaxf(mx, red[w]);
    float l[1] = {0.f};
    for (int j = threadIdx.x; j < L; j += CT) l[0] += (sc[j] = exp2f(sc[j] - mx));
    csums<1>(l, (float (*)[32])(red + 32));      /* its barriers also publish sc */
    /* out[d] = sum_j p_j v[j][d]: thread (grp, d8) takes 8 dims of keys grp, grp + groups, ...;
     * the groups of a warp meet by shuffles, the warps in order */
    const int per = hd / 8, groups = CT / per, d8 = threadIdx.x % per, grp = threadIdx.x / per;
    float acc[8] = {};
    for (int j0 = grp; j0 < L; j0 += 4 * groups) {     /* 4 keys' loads in flight at once */
        int4 v[4];
#pragma unroll
        for (int r = 0; r < 4; r++)
            if (j0 + r * groups < L) v[r] = __ldcg((const int4 *)(a.vc + kv + (long long)(j0 + r * groups) * hd) + d8);
#pragma unroll
        for (int r = 0; r < 4; r++)
            if (j0 + r * groups < L) {
                const half *e = (const half *)&v[r];
#pragma unroll
                for (int e8 = 0; e8 < 8; e8++) acc[e8] = fmaf(sc[j0 + r * groups], f32(e[e8]), acc[e8]);
            }
    }
#pragma unroll
    for (int e8 = 0; e8 < 8; e8++)
        for (int o = per; o < 32; o <<= 1) acc[e8] += __shfl_xor_sync(0xffffffffu, acc[e8], o);
    if ((threadIdx.x & 31) < per)
#pragma unroll
        for (int e8 = 0; e8 < 8; e8++) part[(threadIdx.x >> 5) * 128 + d8 * 8 + e8] = acc[e8];
    csync();
    if (threadIdx.x < hd) {
        float o = 0.f;
        for (int w = 0; w < CW; w++) o += part[w * 128 + threadIdx.x];
        a.attn[(long long)b * a.qd + h * hd + threadIdx.x] = f16(o / l[0]);
    }
}

__global__ void __launch_bounds__(CT + 32, 1) persistent_step(PersistArgs a) {
#if PERSIST_CODE
    extern __shared__ __align__(128) unsigned char smem[];
    half *ring = (half *)smem;
    uint64_t *full = (uint64_t *)(ring + a.ring_stages * STAGE), *empty = full + a.ring_stages;
    half *xs = (half *)(empty + a.ring_stages);
    float *red = (float *)((unsigned char *)xs + a.x_bytes), *ys = red + CW * 32 * 4;
    __shared__ float sums[PERSIST_MAX_ROWS][32];
    if (threadIdx.x == 0) {
        for (int s = 0; s < a.ring_stages; s++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&full[s])) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(saddr(&empty[s])), "r"(CW) : "memory");
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    /* the copy warp starts at once: the weights depend on nothing */
    if (threadIdx.x >= CT) {
        copy_warp(a, ring, full, empty);
        return;
    }
    const Counters ct(a);
    const uint32_t e = a.epoch, res_tiles = (a.dim + 7) / 8;
    uint64_t *tr = a.trace ? a.trace + (long long)blockIdx.x * a.trace_ops * PERSIST_TRACE_SLOTS : NULL;
    int op_i = 0;       /* the trace's op */

    /* embed: unit b copies row tok[b] of the table into h[b] */
    stamp(tr, op_i, 0);
    for (int b = blockIdx.x; b < a.B; b += gridDim.x) {
        stamp(tr, op_i, 1);
        const half *src = a.embed + (long long)__ldcg(a.tok + b) * a.dim;
        for (int i = threadIdx.x; i < a.dim; i += CT) a.h[(long long)b * a.dim + i] = src[i];
        signal(ct.embed, 1);
    }
    stamp(tr, op_i++, 2);

    Walk use;
    use.start(a);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    int slot = 0, phase = 0;            /* the ring slot of the next stage, and its fill's parity */
    for (int j = 0; j <= 4 * a.n_layers; j++) {
        const GOp o = gop(a, j);
        const int l = o.layer;
        /* GEMV op j: this block's tiles, their stages from the ring */
        stamp(tr, op_i, 0);
        uint32_t mine = 0;
        long long ring_cycles = 0, end_cycles = 0;      /* the trace's: waiting for weights; in tile_end */
        for (; !use.done(a) && use.j == j; use.next_tile(a)) {
            if (!mine && (o.kind == G_QKV || o.kind == G_GU || o.kind == G_LM)) {
                /* RMSNorm reads the whole residual: wait for every tile that writes it */
                if (o.kind == G_QKV && l == 0) wait_count(ct.embed, a.rows_sum);
                else wait_count(o.kind == G_GU ? ct.o + l : ct.down + (o.kind == G_LM ? a.n_layers - 1 : l - 1),
                                e * res_tiles);
                stamp(tr, op_i, 1);
                const PersistLayer &L = a.layers[o.kind == G_LM ? 0 : l];
                stage_normed(a, o.kind == G_QKV ? L.attn_norm : o.kind == G_GU ? L.ffn_norm : a.final_norm, xs, sums);
            }
            if (!mine && (o.kind == G_O || o.kind == G_DOWN)) {
                /* KS columns of x at a time: wait for the heads / gate-up tiles that wrote them,
                 * ask for them, on to the next KS; then all of them land */
                for (int ks = 0; ks < o.stages; ks++) {
                    const int cols = min(KS, o.K - ks * KS);
                    const uint32_t target = o.kind == G_O ? a.rows_sum * (uint32_t)(cols / a.hd) : e * (uint32_t)(cols / 8);
                    wait_count((o.kind == G_O ? ct.attn + l * ct.attn_n : ct.gu + l * ct.gu_n) + ks, target);
                    if (ks == 0) stamp(tr, op_i, 1);
                    x_cols(a, o.kind == G_O ? a.attn : a.act, o.K, ks, xs);
                }
                x_landed();
            }
            const EpiIn ep = epi_read(a, o, use.tile);
            float c[4] = {0.f, 0.f, 0.f, 0.f};
            for (int ks = 0; ks < o.stages; ks++) {     /* the tile's stages, as the ring holds them */
                const long long w0c = tr ? clock64() : 0;
                mbar_wait(&full[slot], phase);
                if (tr) ring_cycles += clock64() - w0c;
                const half *st = ring + slot * STAGE + 8 * t;
#pragma unroll
                for (int jj = 0; jj < 2; jj++) {    /* warp w: 32-column chunks w and w + 16 of the stage */
                    const int ch = warp + jj * CW, k = ks * KS + ch * 32 + 8 * t;
                    int4 w0 = make_int4(0, 0, 0, 0), w1 = w0, x = w0;
                    if (k < o.K) {                  /* past K the ring holds an older stage's bytes */
                        w0 = *(const int4 *)(st + g * ROW + ch * 32), w1 = *(const int4 *)(st + (g + 8) * ROW + ch * 32);
                        if (g < a.B) x = *(const int4 *)(xs + g * a.x_stride + k);
                    }
                    mma16816(c, w0.x, w1.x, w0.y, w1.y, x.x, x.y);
                    mma16816(c, w0.z, w1.z, w0.w, w1.w, x.z, x.w);
                }
                __syncwarp();
                if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&empty[slot])) : "memory");
                if (++slot == a.ring_stages) slot = 0, phase ^= 1;
            }
            const long long e0 = tr ? clock64() : 0;
            tile_end(a, o, use.tile, c, ep, red, ys, ct), mine++;
            if (tr) end_cycles += clock64() - e0;
        }
        if (mine) op_end(a, o, j, mine, red, ys, ct);
        if (tr && threadIdx.x == 0) tr[op_i * PERSIST_TRACE_SLOTS + 3] = ring_cycles, tr[op_i * PERSIST_TRACE_SLOTS + 4] = end_cycles;
        stamp(tr, op_i++, 2);
        if (o.kind != G_QKV) continue;

        /* attention of layer l: unit u = (row b, q head h) waits for its q, k and v heads */
        stamp(tr, op_i, 0);
        bool waited = false;
        const int units = a.B * a.nh, per_head = a.hd / 16, rot = rot_of(a, j + 1);
        for (int u = (int)((blockIdx.x + gridDim.x - rot) % gridDim.x); u < units; u += gridDim.x) {
            const int b = u / a.nh, h = u % a.nh, kvh = h / (a.nh / a.nkv);
            const uint32_t *q = ct.qkv + l * ct.qkv_n;
            wait_count(q + h, e * per_head);
            wait_count(q + a.nh + kvh, e * per_head);
            wait_count(q + a.nh + a.nkv + kvh, e * per_head);
            if (!waited) stamp(tr, op_i, 1), waited = true;
            attend(a, l, b, h, (float *)xs);
            signal(ct.attn + l * ct.attn_n + h * a.hd / KS, 1);
        }
        stamp(tr, op_i++, 2);
    }
#else
    __trap();   /* built for an older GPU: gpu_model.cu refuses the mode before it would launch this */
#endif
}

int persist_layout(PersistArgs *a) {
    int kmax = a->dim > a->qd ? a->dim : a->qd;
    if (a->hidden > kmax) kmax = a->hidden;
    a->x_stride = (kmax + KS - 1) / KS * KS + 32;
    const int xb = a->B * a->x_stride * 2, ab = attn_floats(a->max_seq) * 4;
    a->x_bytes = ((xb > ab ? xb : ab) + 15) / 16 * 16;
    const int fixed = a->x_bytes + CW * 32 * 4 * 4 + 16 * PERSIST_MAX_ROWS * 4;
    const int static_smem = 2048;       /* the norm's sums and the rest, with room */
    int stages = (gpu_smem_optin() - static_smem - fixed) / (STAGE * 2 + 16);
    if (stages > PERSIST_MAX_STAGES) stages = PERSIST_MAX_STAGES;
    if (stages < 2) return 0;
    a->ring_stages = stages;
    return stages * (STAGE * 2 + 16) + fixed;
}
int persist_blocks_per_sm(int smem) {
    CUDA_CHECK(cudaFuncSetAttribute(persistent_step, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return gpu_blocks_per_sm((const void *)persistent_step, CT + 32, smem);
}
void k_persistent_step(cudaStream_t s, const PersistArgs *a, int blocks, int smem) {
    op_begin(P_OTHER, -1, "persistent_step");
    /* the shared memory differs with B (the ring gives way to x): ask for this launch's */
    CUDA_CHECK(cudaFuncSetAttribute(persistent_step, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    void *args[] = {(void *)a};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)persistent_step, dim3(blocks), dim3(CT + 32), args, smem, s));
    KERNEL_CHECK("persistent_step");
    op_end();
}
