/* The persistent decode step: the whole step in one kernel, one block on every SM.
 *
 * Why. After CUDA graphs the fused step is 113 kernels and the host is out of the way, yet
 * the H200 runs it at about 1.8x the bandwidth floor (docs/PERF_LOG.md, v22). What is
 * left is each kernel's fixed cost: its first weights arrive a DRAM round trip after it
 * starts, its last products and epilogue run while the DRAM idles, and the next kernel waits
 * for its slowest block. 2 to 4 us a GEMV, four GEMVs a layer, 22 layers: 0.3 ms a step.
 * A kernel boundary is a barrier over the whole GPU. This kernel has none.
 *
 * How. Every block walks the same list of ops (embed; per layer qkv, attention, o, gate/up,
 * down; lm_head with argmax; built in shared memory when the step starts) and takes its share
 * of each: GEMV tile t goes to block (t + rot) % blocks, rot moving on with each op so the
 * extra tiles land on other blocks.
 *   - The weights depend on nothing, so they never wait: the block's 17th warp walks the
 *     same list as the other 16 and has the copy engine (cp.async.bulk, 2 KB of a row a copy)
 *     fill a ring of shared-memory stages of 16 weight rows x 1024 columns, each completing on
 *     an mbarrier, as soon as a slot is free. While the computing warps wait for an op's
 *     inputs, the ring fills with that op's weights: the DRAM does not idle at a boundary.
 *   - A tile waits only for the tiles it reads, through counters in global memory that the
 *     producing tiles increment (a release: __threadfence, then atomicAdd) and the consumer's
 *     thread 0 polls (ld.acquire). An attention head waits for the qkv tiles of its q, k and
 *     v heads alone; o_proj's and down_proj's columns 1024 at a time wait for the heads or the
 *     gate/up tiles that wrote those columns; qkv, gate/up and lm_head wait for the whole
 *     residual, because RMSNorm divides by the root mean square of all of it.
 *   - The counters never go back to zero: step e waits for e x (the tiles a step adds), with
 *     e the step's number, or, where a step adds a unit per row (embed, attention), for the
 *     rows of every step so far (the host counts both), so no step has to clear them.
 *   - Data written in this step by other blocks is read from L2 (__ldcg): an SM's L1 is not
 *     coherent and may still hold a line from a layer before.
 *
 * The order of every sum is fixed, so a token comes out with the same bits every run: a
 * tile's 16 computing warps each own the same 64 columns of every stage, and each output's 16
 * warp parts are added in a fixed tree (tile_end); RMSNorm's sum of squares is the fused
 * GEMV's (same threads, same tree); attention adds its keys in a fixed split over the
 * threads; argmax keeps the lowest index over tiles read in order. No float atomics anywhere.
 * The order is not graph mode's, so where graph mode's two best logits are one fp16 step
 * apart the greedy token can differ (docs/PERF_LOG.md, v25).
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
 * What it measured (H200, docs/PERF_LOG.md v24-v26): 1.17 ms a token at batch 1
 * (1.31 before v25), against graph mode's 0.84. One kernel is not by itself a faster step.
 * Taking parts out one at a time says where the time goes (v26). The weights are not the
 * limit: with no waits, no arithmetic, no tile ends and no attention they stream through this
 * ring in 0.60 ms a step, 0.48 without loading each op's x, near the 0.46 ms floor. Putting
 * back the arithmetic, the tile ends and the attention brings it to 0.89 ms; the waits add the
 * last 0.28 ms: each op waits for its slowest inputs, and every dependent read (x, the
 * embedding row, a release) queues behind the ring's requests in the DRAM. ncu agrees: 38% of
 * the warps' stalls are at barriers (waiting for a counter, or for the other warps at a tile
 * end), 21% on loads from global memory. What v18 found holds: the boundaries were never the
 * cost, the chain of each op's slowest block is. */
#include <stdint.h>
#include "kernels/kernels.cuh"
#include "gpu/gpu.h"
#include "gpu/launch.h"

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
/* NB sums over the computing warps, in block_sums' order */
template <int NB>
__device__ __forceinline__ void csums(float (&v)[NB], float (*red)[32]) {
    tree_sums(v, red, [] { return (int)CW; }, [] { csync(); });
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
/* op j's shape (the divisions are by constants); its weights come from the op list below */
__device__ __forceinline__ GOp gop_shape(const PersistArgs &a, int j) {
    GOp o;
    o.layer = j / 4, o.kind = j == 4 * a.n_layers ? G_LM : j % 4, o.w = NULL;
    switch (o.kind) {
    case G_QKV: o.N = a.qd + 2 * a.kvd, o.K = a.dim, o.tiles = o.N / 16; break;
    case G_O: o.N = a.dim, o.K = a.qd, o.tiles = (a.dim + 15) / 16; break;
    case G_GU: o.N = 2 * a.ffn_dim, o.K = a.dim, o.tiles = a.ffn_dim / 8; break;
    case G_DOWN: o.N = a.dim, o.K = a.ffn_dim, o.tiles = (a.dim + 15) / 16; break;
    default: o.N = a.vocab, o.K = a.dim, o.tiles = (a.vocab + 15) / 16; break;
    }
    o.stages = (o.K + KS - 1) / KS;
    return o;
}
/* The op list, built in shared memory when the step starts, one row an op: its weights, the
 * norm before it (qkv, gate/up, lm_head) and this block's first tile. Without it every walk
 * onto the next op would load the layer's pointers from global memory, a round trip behind
 * the weights' queue (docs/PERF_LOG.md, v25) */
struct OpRow {
    const half *w, *norm;
    int first, pad;
};
__device__ OpRow op_row(const PersistArgs &a, int j) {
    const GOp o = gop_shape(a, j);
    const PersistLayer &L = a.layers[o.kind == G_LM ? 0 : o.layer];
    OpRow r;
    r.w = o.kind == G_QKV ? L.wqkv : o.kind == G_O ? L.wo : o.kind == G_GU ? L.wgu : o.kind == G_DOWN ? L.wdown : a.lm_head;
    r.norm = o.kind == G_QKV ? L.attn_norm : o.kind == G_GU ? L.ffn_norm : o.kind == G_LM ? a.final_norm : NULL;
    /* tile 0 of op j goes to block (tiles of every op before j) mod blocks, the same in every
     * block, so an op's extra tiles land on other blocks than the op before's */
    long long per_layer = 0, before;
    for (int k = 0; k < 4; k++) per_layer += gop_shape(a, k).tiles;
    before = (long long)(j / 4) * per_layer;
    for (int k = 4 * (j / 4); k < j; k++) before += gop_shape(a, k).tiles;
    r.first = (int)((blockIdx.x + gridDim.x - before % gridDim.x) % gridDim.x), r.pad = 0;
    return r;
}
__device__ __forceinline__ GOp gop(const PersistArgs &a, const OpRow *ops, int j) {
    GOp o = gop_shape(a, j);
    o.w = ops[j].w;
    return o;
}
/* the weight row in slot s (0..15) of a tile, -1 if none. qkv: rows i and i + hd/2 of one
 * head in slots g and g + 8 (RoPE pairs them); gate/up: gate i in g, up i in g + 8 (silu *
 * mul pairs them); o, down, lm_head: 16 rows */
__device__ __forceinline__ int slot_row(const PersistArgs &a, const GOp &o, int tile, int s) {
    const int g = s & 7, h = s >> 3;
    switch (o.kind) {
    case G_QKV: {
        const int hh = a.hd / 2, per_head = hh / 8;
        return tile / per_head * a.hd + tile % per_head * 8 + g + h * hh;
    }
    case G_GU: return h * a.ffn_dim + tile * 8 + g;
    default: return tile * 16 + s < o.N ? tile * 16 + s : -1;
    }
}

/* A block's walk over its GEMV stages: op j, tile, stage ks. The copy warp walks it stage by
 * stage, the computing warps tile by tile, the copies up to the ring ahead. */
struct Walk {
    int j, tile, ks;
    GOp o;
    const OpRow *ops;
    __device__ __forceinline__ void settle(const PersistArgs &a) {   /* on to a tile of this block's */
        while (tile >= o.tiles && ++j <= 4 * a.n_layers) o = gop(a, ops, j), tile = ops[j].first, ks = 0;
    }
    __device__ __forceinline__ void start(const PersistArgs &a, const OpRow *op_list) {
        ops = op_list, j = 0, ks = 0, o = gop(a, ops, 0), tile = ops[0].first;
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
__device__ void copy_warp(const PersistArgs &a, const OpRow *ops, half *ring, uint64_t *full, uint64_t *empty) {
    const int lane = threadIdx.x & 31, R = a.ring_stages, inflight = R < PERSIST_INFLIGHT ? R : PERSIST_INFLIGHT;
    uint64_t policy;                    /* weights are read once a step: first out of L2 */
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    Walk w;
    w.start(a, ops);
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
        qkv_n = a.nh + 2 * a.nkv, attn_n = (a.qd + KS - 1) / KS, gu_n = (a.ffn_dim + KS - 1) / KS;
        embed = a.counters, qkv = embed + 1, attn = qkv + a.n_layers * qkv_n, o = attn + a.n_layers * attn_n;
        gu = o + a.n_layers, down = gu + a.n_layers * gu_n, lm = down + a.n_layers;
    }
};
long long persist_counter_count(int n_layers, int nh, int nkv, int qd, int ffn_dim) {
    return 2 + (long long)n_layers * (nh + 2 * nkv + (qd + KS - 1) / KS + 2 + (ffn_dim + KS - 1) / KS);
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

/* What a tile's epilogue reads besides its sums, asked for when the tile starts so that the
 * round trip is off the tile's path, and waited for at its end: for row b, part 0 and 1, eight
 * halves each: o, down: the residual h[b] of slots 0-7 and 8-15 (written two ops before, which
 * every op between waited for); qkv: cos and sin at the row's position for slots 0-7. The
 * positions are read when the step starts (pos, in shared memory). */
__device__ __forceinline__ void epi_copy(const PersistArgs &a, const GOp &o, int tile, const int *pos, half (*epi)[2][8]) {
    if (threadIdx.x >= 2 * a.B || (o.kind != G_QKV && o.kind != G_O && o.kind != G_DOWN)) return;
    const int b = threadIdx.x % a.B, part = threadIdx.x / a.B;
    if (o.kind == G_QKV) {
        const int hh = a.hd / 2, i0 = tile % (hh / 8) * 8;
        x_copy(epi[b][part], (part ? a.sin_t : a.cos_t) + pos[b] * hh + i0, true);
    } else {
        const int r = tile * 16 + part * 8;
        x_copy(epi[b][part], a.h + (long long)b * a.dim + (r < o.N ? r : 0), r < o.N);
    }
}

/* the epilogue of pair p = (slot g, row b) of a tile: y0, y1 the sums of slots g and g + 8 */
__device__ void epilogue(const PersistArgs &a, const GOp &o, int tile, int p, float v, float v1, const int *pos,
                         const half (*epi)[2][8], float *ys) {
    const int g = p / a.B, b = p % a.B;
    half y0 = f16(v), y1 = f16(v1);
    const int r0 = slot_row(a, o, tile, g), r1 = slot_row(a, o, tile, g + 8);
    if (o.kind == G_QKV) {
        const int hh = a.hd / 2, head = r0 / a.hd, i = r0 % a.hd;
        if (head < a.nh + a.nkv) rope_pair(y0, y1, epi[b][0][g], epi[b][1][g]);
        half *d;
        if (head < a.nh) d = a.q + (long long)b * a.qd + head * a.hd;
        else {
            const bool is_k = head < a.nh + a.nkv;
            const int kvh = head - a.nh - (is_k ? 0 : a.nkv);
            d = (is_k ? a.kc : a.vc) + o.layer * a.kv_layer + (((long long)b * a.nkv + kvh) * a.max_seq + pos[b]) * a.hd;
        }
        d[i] = y0, d[i + hh] = y1;
    } else if (o.kind == G_GU) {
        a.act[(long long)b * a.ffn_dim + r0] = f16(f32(f16(silu_f(f32(y0)))) * f32(y1));
    } else if (o.kind == G_O || o.kind == G_DOWN) {
        if (r0 >= 0) a.h[(long long)b * a.dim + r0] = f16(f32(epi[b][0][g]) + f32(y0));
        if (r1 >= 0) a.h[(long long)b * a.dim + r1] = f16(f32(epi[b][1][g]) + f32(y1));
    } else {                        /* lm_head: the logits, and the pair's better for argmax */
        float bv = -INFINITY;
        int bi = 0x7fffffff;
        if (r0 >= 0) a.logits[(long long)b * a.vocab + r0] = y0, better(bv, bi, f32(y0), r0);
        if (r1 >= 0) a.logits[(long long)b * a.vocab + r1] = y1, better(bv, bi, f32(y1), r1);
        ys[p] = bv, ((int *)ys)[8 * PERSIST_MAX_ROWS + p] = bi;
    }
}

/* ---- one GEMV tile's end. Each warp puts its part of every output (slot s, row b) in red; one
 * barrier; then output pair p = (slot g, row b) goes to 2 L lanes of one warp (L = 16, 8 or 4
 * as B grows, so that one pass of the 512 threads covers all 16 B outputs): L lanes add the 16
 * warps' parts of slot g, each `per` of them in order, then a tree of shuffles; the next L
 * those of slot g + 8; the first lane runs the epilogue. red alternates between two buffers
 * tile by tile, so the next tile's parts never overwrite this one's before they are read, and
 * no second barrier is needed: a warp done with its epilogue goes on to the next tile's stages
 * ---- */
/* red: 16 slots x B rows x 16 warps' parts, padded to 17 (no two lanes of a write in one bank) */
static __host__ __device__ int red_floats(int B) { return 16 * B * 17; }
__device__ __forceinline__ int red_at(const PersistArgs &a, int s, int b, int w) { return (s * a.B + b) * 17 + w; }
__device__ void tile_end(const PersistArgs &a, const GOp &o, int tile, const float (&c)[4], const int *pos,
                         const half (*epi)[2][8], float *red, float *ys, const Counters &ct) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int e = 0; e < 4; e++) {       /* mma's layout: c[e] is slot g + 8 (e / 2), row 2 t + e % 2 */
        const int s = (lane >> 2) + (e >> 1) * 8, b = 2 * (lane & 3) + (e & 1);
        if (b < a.B) red[red_at(a, s, b, warp)] = c[e];
    }
#if PERSIST_CODE
    asm volatile("cp.async.wait_all;" ::: "memory");    /* epi_copy's, if this thread asked */
#endif
    csync();
    /* output q = 2 p + h (h: slot g or g + 8), lanes q L .. q L + L - 1 */
    const int L = a.B <= 2 ? 16 : a.B <= 4 ? 8 : 4, per = 16 / L;
    if (threadIdx.x < 16 * a.B * L) {       /* whole warps: 16 B L is a multiple of 32 */
        const int q = threadIdx.x / L, i = threadIdx.x % L, p = q >> 1, g = p / a.B, b = p % a.B;
        float v = 0.f;
        for (int k = 0; k < per; k++) v += red[red_at(a, g + (q & 1) * 8, b, i * per + k)];
        for (int m = L / 2; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
        const float v1 = __shfl_down_sync(0xffffffffu, v, L);
        if (i == 0 && !(q & 1)) epilogue(a, o, tile, p, v, v1, pos, epi, ys);
    }
    if (o.kind == G_LM) {               /* each row's first maximum over the tile, for argmax */
        csync();
        if (threadIdx.x < a.B) {
            const int b = threadIdx.x;
            float bv = -INFINITY;
            int bi = 0x7fffffff;
            for (int g = 0; g < 8; g++) better(bv, bi, ys[g * a.B + b], ((int *)ys)[8 * PERSIST_MAX_ROWS + g * a.B + b]);
            a.best_v[(long long)b * o.tiles + tile] = bv, a.best_i[(long long)b * o.tiles + tile] = bi;
        }
    }
    /* qkv's heads are waited for tile by tile; the other ops count their tiles once a block is
     * done with the op (op_end): a release waits for the block's writes to reach L2, about a
     * microsecond while the DRAM queue is full of weights (docs/PERF_LOG.md, v24) */
    if (o.kind == G_QKV) signal(ct.qkv + o.layer * ct.qkv_n + slot_row(a, o, tile, 0) / a.hd, 1);
}
/* a block done with its `mine` tiles of op j (not qkv) counts them; the step's last lm_head
 * tile picks the tokens */
__device__ void op_end(const PersistArgs &a, const GOp &o, int first, uint32_t mine, float *red, float *ys,
                       const Counters &ct) {
    if (o.kind == G_QKV) return;
    if (o.kind == G_GU) {       /* each of its tiles into its KS columns' counter, after one fence */
        csync();
        if (threadIdx.x == 0) {
            __threadfence();
            for (int t = first; t < o.tiles; t += gridDim.x)
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
        for (int d0 = 0; d0 < hd / 8; d0 += 4) {   /* 4 loads of the key in flight, then their products */
            int4 kk[4];
#pragma unroll
            for (int d8 = 0; d8 < 4; d8++)
                if (d0 + d8 < hd / 8) kk[d8] = __ldcg(k + d0 + d8);
#pragma unroll
            for (int d8 = 0; d8 < 4; d8++)
                if (d0 + d8 < hd / 8) {
                    const half *e = (const half *)&kk[d8];
#pragma unroll
                    for (int e8 = 0; e8 < 8; e8++) s = fmaf(qf[(d0 + d8) * 8 + e8], f32(e[e8]), s);
                }
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
    const int red1 = red_floats(a.B);    /* one of red's two buffers */
    float *red = (float *)((unsigned char *)xs + a.x_bytes), *ys = red + 2 * red1;
    OpRow *ops = (OpRow *)(ys + 16 * PERSIST_MAX_ROWS);                 /* 4 n_layers + 1 rows */
    for (int j = threadIdx.x; j <= 4 * a.n_layers; j += blockDim.x) ops[j] = op_row(a, j);
    __shared__ float sums[PERSIST_MAX_ROWS][32];
    __shared__ int pos[PERSIST_MAX_ROWS];                           /* each row's position this step */
    __shared__ __align__(16) half epi_in[2][PERSIST_MAX_ROWS][2][8];  /* epi_copy's, two tiles' */
    if (threadIdx.x < a.B) pos[threadIdx.x] = __ldcg(a.pos + threadIdx.x);
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
        copy_warp(a, ops, ring, full, empty);
        return;
    }
    const Counters ct(a);
    const uint32_t e = a.epoch, res_tiles = (a.dim + 15) / 16;
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
    use.start(a, ops);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    int slot = 0, phase = 0;            /* the ring slot of the next stage, and its fill's parity */
    unsigned tiles_ended = 0;           /* which of red's buffers the next tile's end uses */
    for (int j = 0; j <= 4 * a.n_layers; j++) {
        const GOp o = gop(a, ops, j);
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
                stage_normed(a, ops[j].norm, xs, sums);
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
            half (*epi)[2][8] = epi_in[tiles_ended & 1];
            epi_copy(a, o, use.tile, pos, epi);
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
            tile_end(a, o, use.tile, c, pos, epi, red + (tiles_ended++ & 1) * red1, ys, ct), mine++;
            if (tr) end_cycles += clock64() - e0;
        }
        if (mine) op_end(a, o, ops[j].first, mine, red, ys, ct);
        if (tr && threadIdx.x == 0) tr[op_i * PERSIST_TRACE_SLOTS + 3] = ring_cycles, tr[op_i * PERSIST_TRACE_SLOTS + 4] = end_cycles;
        stamp(tr, op_i++, 2);
        if (o.kind != G_QKV) continue;

        /* attention of layer l: unit u = (row b, q head h) waits for its q, k and v heads */
        stamp(tr, op_i, 0);
        bool waited = false;
        const int units = a.B * a.nh, per_head = a.hd / 16;
        for (int u = ops[j + 1].first; u < units; u += gridDim.x) {     /* o's rotation */
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
    if (a->ffn_dim > kmax) kmax = a->ffn_dim;
    a->x_stride = (kmax + KS - 1) / KS * KS + 32;
    const int xb = a->B * a->x_stride * 2, ab = attn_floats(a->max_seq) * 4;
    a->x_bytes = ((xb > ab ? xb : ab) + 15) / 16 * 16;
    const int fixed = a->x_bytes + 2 * red_floats(a->B) * 4 + 16 * PERSIST_MAX_ROWS * 4 +
                      (4 * a->n_layers + 1) * (int)sizeof(OpRow);
    const int static_smem = 2048;       /* the norm's sums and the rest, with room */
    int stages = (gpu_smem_optin() - static_smem - fixed) / (STAGE * 2 + 16);
    if (stages > PERSIST_MAX_STAGES) stages = PERSIST_MAX_STAGES;
    if (stages < 2) return 0;
    a->ring_stages = stages;
    return stages * (STAGE * 2 + 16) + fixed;
}
/* the shared memory differs with B (the ring gives way to x): the kernel may take all that a
 * block can have beside its static arrays, set here, before a batch size's first launch */
int persist_blocks_per_sm(int smem) {
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, persistent_step));
    CUDA_CHECK(cudaFuncSetAttribute(persistent_step, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    gpu_smem_optin() - (int)fa.sharedSizeBytes));
    return gpu_blocks_per_sm((const void *)persistent_step, CT + 32, smem);
}
void k_persistent_step(cudaStream_t s, const PersistArgs *a, int blocks, int smem) {
    op_begin(P_OTHER, -1, "persistent_step");
    void *args[] = {(void *)a};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)persistent_step, dim3(blocks), dim3(CT + 32), args, smem, s));
    KERNEL_CHECK("persistent_step");
    op_end();
}
