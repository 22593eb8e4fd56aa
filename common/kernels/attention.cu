/* attention over the KV cache: softmax(q k^T / sqrt(head_dim)) v with an online softmax in
 * fp32. Two kernels: attn_kv for queries of different rows (a decode step, one query a row),
 * attn_prompt (below) for many queries of one row (a prompt).
 * attn_kv: a block serves one (query, kv head) and the G query heads that share that kv head
 * (grouped-query attention), over one slice of the keys: a query of L keys is cut into
 * ceil(L / chunk) slices of chunk = max(ATTN_SLICE_KEYS, ceil(L / splits)) keys, so the cut
 * depends on L alone (a row's result is the same in any batch) and a short context is not
 * cut finer than a merge is worth. A long context's slices (more than ATTN_SLICE_KEYS keys)
 * run on several SMs, and one block merges them (flash-decoding: see attn_kv for which).
 * Within a slice each warp takes 16 keys at a time on tensor cores (attend_slice). Under
 * programmatic dependent launch a block starts while the GEMV before it still runs, and copies
 * the keys already in the cache into shared memory then (KvStage); after the wait only q, the
 * new key and what did not fit are read: graph batch 1 0.899 -> 0.847 ms (docs/PERF_LOG.md, v19). */
#include <cooperative_groups.h>
#include "kernels/kernels.cuh"
#include "gpu/gpu.h"
#include "gpu/launch.h"
namespace cg = cooperative_groups;

enum { ATTN_THREADS = 256, ATTN_WARPS = ATTN_THREADS / 32, MAXG = 8 };   /* the prompt kernel */
#ifndef KV_WARPS
#define KV_WARPS 8                  /* the decode kernel's warps (docs/PERF_LOG.md, v15) */
#endif
enum { KV_THREADS = KV_WARPS * 32 };
#ifndef ATTN_CLUSTER_ROWS
#define ATTN_CLUSTER_ROWS 8         /* up to this many rows a decode step merges slices in a cluster */
#endif
#ifndef ATTN_SLICE_KEYS
#define ATTN_SLICE_KEYS 512         /* the fewest keys a slice gets: a merge costs about what 4 more rounds
                                       of a block's 8 warps (16 keys each) do (docs/PERF_LOG.md, v15) */
#endif

__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
}
/* exp2(x - m), 0 when both are -inf (an empty slice) */
__device__ __forceinline__ float rescale(float x, float m) { return m == -INFINITY ? 0.f : exp2f(x - m); }

/* out = the merge of a (query, kv head)'s slices, slice s's partial result at src(s):
 * m[G], l[G] (padded to 4 floats), then acc[G][HD]. Each slice's weight per head first, then
 * every output as one pass of independent 16-byte loads; the same arithmetic whichever way
 * the slices arrive (global memory, or a cluster's shared memory), so a row's result does
 * not depend on which path its batch size took. LDCG: the slices are in global memory,
 * written by other blocks: read them from L2. */
template <int HD, bool LDCG, typename Src>
__device__ __forceinline__ void merge_slices(Src src, int slices, int G, half *out) {
    __shared__ float weight[ATTN_MAX_SPLITS][MAXG];
    const int ml = (2 * G + 3) & ~3;
    if (threadIdx.x < G) {
        const int g = threadIdx.x;
        float m[ATTN_MAX_SPLITS], M = -INFINITY, S = 0.f;
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++) {
            m[s] = s < slices ? (LDCG ? __ldcg(src(s) + g) : src(s)[g]) : -INFINITY;
            M = fmaxf(M, m[s]);
        }
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++)
            if (s < slices) S += (LDCG ? __ldcg(src(s) + G + g) : src(s)[G + g]) * rescale(m[s], M);
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++) weight[s][g] = rescale(m[s], M) / S;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * HD / 4; i += KV_THREADS) {
        const int g = i * 4 / HD;
        float4 acc4 = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++) {
            if (s >= slices) break;
            const float4 *p = (const float4 *)(src(s) + ml) + i;
            float4 v = LDCG ? __ldcg(p) : *p;
            float e = weight[s][g];
            acc4.x += v.x * e, acc4.y += v.y * e, acc4.z += v.z * e, acc4.w += v.w * e;
        }
        __half2 *o = (__half2 *)(out + i * 4);
        o[0] = __floats2half2_rn(acc4.x, acc4.y);
        o[1] = __floats2half2_rn(acc4.z, acc4.w);
    }
}

/* n halves from p (4, 8, 16 or 32 bytes) into r */
template <int N>
__device__ __forceinline__ void load_halves(const half *p, half (&r)[N]) {
    if constexpr (N == 2) *(uint32_t *)r = __ldg((const unsigned int *)p);
    else if constexpr (N == 4) *(uint2 *)r = __ldg((const uint2 *)p);
    else
#pragma unroll
        for (int i = 0; i < N / 8; i++) ((int4 *)r)[i] = __ldg((const int4 *)p + i);
}
__device__ __forceinline__ uint32_t pack_h2(half lo, half hi) {
    __half2 h = __halves2half2(lo, hi);
    return *(uint32_t *)&h;
}

/* The rounds of a warp's keys that sit in the KV cache before the kernel starts, copied into
 * the block's dynamic shared memory (cp.async, sm_80+) while the kernel before still runs:
 * lane by lane the fragments load() would take, so each lane reads back only what it copied
 * (no barrier) and the arithmetic is unchanged. Rounds [0, n) of a warp, n as many as
 * %dynamic_smem_size holds; none when the launch gives no shared memory. */
template <int HD>
struct KvStage {
    static constexpr int KS = HD / 16, NT = HD / 8;
    static constexpr int K_BYTES = 2 * KS * 8, LANE_BYTES = K_BYTES + 4 * NT * 2;   /* a lane's round */
    static constexpr int ROUND_BYTES = KV_WARPS * 32 * LANE_BYTES;                 /* a block's round */
    unsigned char *p;                   /* this warp's round 0 */
    int lane;
    __device__ KvStage(int warp, int l) : lane(l) {
        extern __shared__ __align__(16) unsigned char kv_stage[];
        p = kv_stage + warp * 32 * LANE_BYTES;
    }
    /* K fragment (n, s) at p + ((n KS + s) 32 + lane) 8; V's i at p + K_BYTES 32 + (i 32 + lane) 2NT */
    __device__ unsigned char *kp(int r, int n, int s) { return p + r * ROUND_BYTES + ((n * KS + s) * 32 + lane) * 8; }
    __device__ unsigned char *vp(int r, int i) { return p + r * ROUND_BYTES + K_BYTES * 32 + (i * 32 + lane) * 2 * NT; }
    /* copy the rounds from kb0 (step 16 KV_WARPS) whose keys are all below end; returns how many */
    __device__ int copy(const half *kc, const half *vc, int kb0, int end, int g, int q4) {
        int rounds = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        uint32_t bytes;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
        for (int kb = kb0; rounds < (int)bytes / ROUND_BYTES && kb + 16 <= end; kb += 16 * KV_WARPS, rounds++) {
#pragma unroll
            for (int n = 0; n < 2; n++)
#pragma unroll
                for (int s = 0; s < KS; s++) cp<8>(kp(rounds, n, s), kc + (long long)(kb + 8 * n + g) * HD + 4 * q4 + 16 * s);
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const half *v = vc + (long long)(kb + (i >> 1) * 8 + 2 * q4 + (i & 1)) * HD + g * NT;
                if constexpr (NT >= 8)
#pragma unroll
                    for (int b = 0; b < NT / 8; b++) cp<16>(vp(rounds, i) + 16 * b, v + 8 * b);
                else cp<2 * NT>(vp(rounds, i), v);
            }
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
#endif
        return rounds;
    }
    __device__ void wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    }
    __device__ void read(int r, uint2 (&kf)[2][KS], half (&vf)[4][NT]) {
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int s = 0; s < KS; s++) kf[n][s] = *(const uint2 *)kp(r, n, s);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (NT == 2) *(uint32_t *)vf[i] = *(const uint32_t *)vp(r, i);
            else if constexpr (NT == 4) *(uint2 *)vf[i] = *(const uint2 *)vp(r, i);
            else
#pragma unroll
                for (int b = 0; b < NT / 8; b++) ((int4 *)vf[i])[b] = ((const int4 *)vp(r, i))[b];
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    template <int BYTES>                /* 4, 8 or 16 aligned bytes */
    __device__ static void cp(void *dst, const void *src) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((uint32_t)__cvta_generic_to_shared(dst)), "l"(src),
                     "n"(BYTES) : "memory");
    }
#endif
};

/* one slice of one (query, kv head): keys [sp * chunk, min(L, (sp + 1) * chunk)) for the G
 * q heads of kv head kvh, on tensor cores. Warp w takes the slice's 16-key groups w, w + 8,
 * ...: S = Q K^T with the G heads as the mma's rows (rows G..15 are zero), the online softmax
 * of each head, then O += P V (P as fp16 hi + lo parts, l summed from the fp32 p). Both
 * products read their operands straight from the cache, because a sum does not care about
 * the order of its terms:
 *   - in S, lane t of a quad holds d 4t..4t+3 of each 16-wide step, of q and k alike (one
 *     8-byte load each: the fragment's k 2t, 2t+1, 2t+8, 2t+9);
 *   - in P V, output column n of n-tile j is d = n HD/8 + j, so lane g's B fragments of all
 *     HD/8 n-tiles come from one load of d g HD/8 .. (g + 1) HD/8 - 1 of each of its 4 keys.
 * With one slice the result goes to out, else the slice's partial result (m, l, acc) to part. */
template <int HD>
__device__ __forceinline__ void attend_slice(const AttnArgs &a, int t, int kvh, int sp, int L, int chunk, int slices,
                                             float *part, half *out) {
    constexpr int KS = HD / 16, NT = HD / 8;          /* k steps of S, n-tiles of O (= d per lane of V) */
    __shared__ float sm_m[KV_WARPS][MAXG], sm_l[KV_WARPS][MAXG], sm_acc[KV_WARPS][MAXG][HD];
    const int G = a.nh / a.nkv, ml = (2 * G + 3) & ~3, row = a.row ? a.row[t] : t;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q4 = lane & 3;
    const int j0 = sp * chunk, j1 = min(L, j0 + chunk);
    const float scale = rsqrtf((float)HD) * 1.4426950409f;     /* scores in log2 units */
    const long long base = (((long long)row * a.nkv + kvh) * a.max_seq) * HD;
    /* a step's 16 keys: k rows kb + g and kb + 8 + g; v rows kb + 2q4, +1, kb + 8 + 2q4, +1 */
    auto load = [&](int kb, uint2 (&kf)[2][KS], half (&vf)[4][NT]) {
#pragma unroll
        for (int n = 0; n < 2; n++) {
            const int j = kb + 8 * n + g;
            const half *kp = a.kc + base + (long long)j * HD + 4 * q4;
#pragma unroll
            for (int s = 0; s < KS; s++) kf[n][s] = j < j1 ? __ldg((const uint2 *)(kp + 16 * s)) : make_uint2(0u, 0u);
        }
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int j = kb + (i >> 1) * 8 + 2 * q4 + (i & 1);
            if (j < j1) load_halves<NT>(a.vc + base + (long long)j * HD + g * NT, vf[i]);
            else
#pragma unroll
                for (int d = 0; d < NT; d++) vf[i][d] = __ushort_as_half(0);
        }
    };
    /* Before the wait: the warp's first rounds whose 16 keys are all old (below L - 1, the
     * key the kernel before writes) are copied into shared memory, each lane its own
     * fragments, as many rounds as the launch gave room for (see k_attention) */
    const int kb0 = j0 + warp * 16;                            /* this warp's first round */
    KvStage<HD> stage(warp, lane);
    const int staged = stage.copy(a.kc + base, a.vc + base, kb0, min(j1, L - 1), g, q4);
    const int ku = kb0 + 16 * KV_WARPS * staged;               /* the first round not staged */
    pdl_wait();
    uint2 qf[KS];                                              /* head g's row of A (0 past G) */
    const half *qp = a.q + (long long)t * a.q_stride + (kvh * G + g) * HD + 4 * q4;
#pragma unroll
    for (int s = 0; s < KS; s++) qf[s] = g < G ? __ldg((const uint2 *)(qp + 16 * s)) : make_uint2(0u, 0u);
    uint2 kn[2][KS];                                           /* round ku, in flight during the staged ones */
    half vn[4][NT];
    if (ku < j1) load(ku, kn, vn);
    stage.wait();
    float m = -INFINITY, l = 0.f, o[NT][4] = {};
    /* one round: the 16 keys from kb, their K and V fragments in kf and vf */
    auto step = [&](int kb, const uint2 (&kf)[2][KS], const half (&vf)[4][NT]) {
        float sc[2][4] = {};
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int s = 0; s < KS; s++) mma16816(sc[n], qf[s].x, 0u, qf[s].y, 0u, kf[n][s].x, kf[n][s].y);
        /* row g's scores: keys kb + 8n + 2q4 + e in sc[n][e] */
        float mx = m;
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                sc[n][e] = kb + 8 * n + 2 * q4 + e < j1 ? sc[n][e] * scale : -INFINITY;
                mx = fmaxf(mx, sc[n][e]);
            }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float c = rescale(m, mx);
        m = mx, l *= c;
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int e = 0; e < 2; e++) sc[n][e] = rescale(sc[n][e], m), l += sc[n][e];
        /* P as two fp16 parts, p = hi + lo (about 22 bits): P in fp16 alone flipped a greedy
         * token of transformers' TinyLlama-shaped model (docs/PERF_LOG.md, v15) */
        const uint32_t hi0 = pack2(sc[0][0], sc[0][1]), hi2 = pack2(sc[1][0], sc[1][1]);
        const __half2 h0 = *(const __half2 *)&hi0, h2 = *(const __half2 *)&hi2;
        const uint32_t lo0 = pack2(sc[0][0] - __low2float(h0), sc[0][1] - __high2float(h0));
        const uint32_t lo2 = pack2(sc[1][0] - __low2float(h2), sc[1][1] - __high2float(h2));
#pragma unroll
        for (int j = 0; j < NT; j++) {
            const uint32_t v0 = pack_h2(vf[0][j], vf[1][j]), v1 = pack_h2(vf[2][j], vf[3][j]);
            o[j][0] *= c, o[j][1] *= c;
            mma16816(o[j], hi0, 0u, hi2, 0u, v0, v1);
            mma16816(o[j], lo0, 0u, lo2, 0u, v0, v1);
        }
    };
    for (int r = 0; r < staged; r++) {
        uint2 sk[2][KS];
        half sv[4][NT];
        stage.read(r, sk, sv);
        step(kb0 + 16 * KV_WARPS * r, sk, sv);
    }
    for (int kb = ku; kb < j1; kb += 16 * KV_WARPS) {
        if (kb != ku) load(kb, kn, vn);
        step(kb, kn, vn);
    }
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    /* the warps' results side by side in shared memory: o[j][e] is d (2 q4 + e) HD/8 + j */
    if (g < G) {
        if (q4 == 0) sm_m[warp][g] = m, sm_l[warp][g] = l;
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 2; e++) sm_acc[warp][g][(2 * q4 + e) * NT + j] = o[j][e];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * HD; i += KV_THREADS) {
        const int h = i / HD, d = i % HD;
        float M = -INFINITY, S = 0.f, A = 0.f;
        for (int w = 0; w < KV_WARPS; w++) M = fmaxf(M, sm_m[w][h]);
        for (int w = 0; w < KV_WARPS; w++) {
            float e = rescale(sm_m[w][h], M);
            S += sm_l[w][h] * e, A += sm_acc[w][h][d] * e;
        }
        if (slices == 1) out[i] = f16(A / S);
        else {
            if (d == 0) part[h] = M, part[G + h] = S;
            part[ml + i] = A;
        }
    }
}

/* CLUSTER (sm_90, a few rows): the ATTN_MAX_SPLITS blocks of a (query, kv head) form a
 * thread-block cluster; each keeps its slice's result in its shared memory and the first
 * merges them through distributed shared memory, with no global round trips, fence or
 * atomic counter. Otherwise each slice goes to global memory and the last block to finish
 * merges them. */
template <int HD, bool CLUSTER>
__global__ void __launch_bounds__(KV_THREADS) attn_kv(AttnArgs a) {
    __shared__ __align__(16) float res[CLUSTER ? ((2 * MAXG + 3) & ~3) + MAXG * HD : 1];
    __shared__ int is_last;
    /* positions are written two or more kernels before (pdl_wait): read before the wait */
    const int kvh = blockIdx.x, t = blockIdx.y, sp = blockIdx.z, G = a.nh / a.nkv, L = a.pos[t] + 1;
    const int chunk = max(ATTN_SLICE_KEYS, (L + a.splits - 1) / a.splits), slices = (L + chunk - 1) / chunk;
    /* a slice's partial result: m[G], l[G] (padded to 4 floats), then acc[G][HD] */
    const int stride = ((2 * G + 3) & ~3) + G * HD;
    float *p0 = a.part + (long long)(t * a.nkv + kvh) * a.splits * stride;
    half *out = a.out + (long long)t * a.out_stride + kvh * G * HD;
    if (sp < slices)                                            /* else the query needs fewer slices */
        attend_slice<HD>(a, t, kvh, sp, L, chunk, slices, CLUSTER ? res : p0 + sp * stride, out);
    else pdl_wait();
    if (slices == 1) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CLUSTER) {
        cg::cluster_group cl = cg::this_cluster();
        cl.sync();                                              /* every slice is in its block */
        if (sp == 0) merge_slices<HD, false>([&](int s) { return (const float *)cl.map_shared_rank(res, s); }, slices, G, out);
        cl.sync();                                              /* keep them until read */
        return;
    }
#else
    if (CLUSTER) __trap();                                      /* compiled for an older GPU: never picked (k_attention) */
#endif
    if (sp >= slices) return;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) is_last = atomicAdd(&a.counter[t * a.nkv + kvh], 1) == slices - 1;
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    merge_slices<HD, true>([&](int s) { return (const float *)p0 + s * stride; }, slices, G, out);
    if (threadIdx.x == 0) a.counter[t * a.nkv + kvh] = 0;
}

/* ---- a prompt's attention: the queries of one row, a flash-attention tile ----
 * In a prefill the queries of a kv head share their keys, so a block takes a tile of queries
 * and stages each PT_KEYS keys of K and V in shared memory once for all of them (the kernel
 * above loads them once per query). Warp w serves q head w / wph of the group for 16
 * queries, the rows of an mma: S = Q K^T and O += P V on tensor cores (fp16 in, fp32 sums),
 * an online softmax in between as in FlashAttention-2 (P rounded to fp16 for the second
 * product, l summed from the fp32 p). */
enum { PT_KEYS = 64 };
__device__ __forceinline__ uint32_t ld32(const half *p) { return *(const uint32_t *)p; }

template <int HD>
__global__ void __launch_bounds__(ATTN_THREADS) attn_prompt(AttnArgs a) {
    constexpr int KS = HD + 8, VS = PT_KEYS + 8;   /* padded rows: fragment reads hit 32 banks */
    __shared__ __align__(16) half ks[PT_KEYS * KS], vt[HD * VS];   /* K, and V transposed */
    __shared__ int kend;
    pdl_wait();
    const int G = a.nh / a.nkv, wph = ATTN_WARPS / G, QT = 16 * wph;
    const int kvh = blockIdx.x, t0 = blockIdx.y * QT;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int head = warp / wph, qa = t0 + warp % wph * 16 + g, qb = qa + 8;   /* this lane's two queries */
    const bool active = head < G;
    const int pa = active && qa < a.T ? a.pos[qa] : -1, pb = active && qb < a.T ? a.pos[qb] : -1;
    if (threadIdx.x == 0) {
        int e = 0;
        for (int i = t0; i < min(a.T, t0 + QT); i++) e = max(e, a.pos[i] + 1);
        kend = e;
    }
    uint32_t qf[HD / 16][4];
    const half *qpa = a.q + (long long)qa * a.q_stride + (kvh * G + head) * HD + 2 * t, *qpb = qpa + 8LL * a.q_stride;
#pragma unroll
    for (int kk = 0; kk < HD / 16; kk++) {
        qf[kk][0] = pa >= 0 ? ld32(qpa + kk * 16) : 0u, qf[kk][1] = pb >= 0 ? ld32(qpb + kk * 16) : 0u;
        qf[kk][2] = pa >= 0 ? ld32(qpa + kk * 16 + 8) : 0u, qf[kk][3] = pb >= 0 ? ld32(qpb + kk * 16 + 8) : 0u;
    }
    const long long base = (((long long)a.row[0] * a.nkv + kvh) * a.max_seq) * HD;
    const float scale = rsqrtf((float)HD) * 1.4426950409f;   /* scores in log2 units */
    float o[HD / 8][4] = {}, m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    __syncthreads();
    for (int k0 = 0; k0 < kend; k0 += PT_KEYS) {
        for (int i = threadIdx.x; i < PT_KEYS * HD / 8; i += ATTN_THREADS) {
            const int j = i / (HD / 8), d = i % (HD / 8) * 8;
            int4 kv = make_int4(0, 0, 0, 0), vv = kv;
            if (k0 + j < kend) {
                kv = __ldg((const int4 *)(a.kc + base + (long long)(k0 + j) * HD + d));
                vv = __ldg((const int4 *)(a.vc + base + (long long)(k0 + j) * HD + d));
            }
            *(int4 *)(ks + j * KS + d) = kv;
            const half *vh = (const half *)&vv;
#pragma unroll
            for (int e = 0; e < 8; e++) vt[(d + e) * VS + j] = vh[e];
        }
        __syncthreads();
        if (active) {
            float s[PT_KEYS / 8][4] = {};
#pragma unroll
            for (int n = 0; n < PT_KEYS / 8; n++)
#pragma unroll
                for (int kk = 0; kk < HD / 16; kk++) {
                    const half *kp = ks + (n * 8 + g) * KS + kk * 16 + 2 * t;
                    mma16816(s[n], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], ld32(kp), ld32(kp + 8));
                }
            /* causal mask, then the online softmax of rows a (s[.][0..1]) and b (s[.][2..3]) */
            float mx[2] = {m[0], m[1]};
#pragma unroll
            for (int n = 0; n < PT_KEYS / 8; n++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int j = k0 + n * 8 + 2 * t + (e & 1);
                    s[n][e] = j <= (e < 2 ? pa : pb) ? s[n][e] * scale : -INFINITY;
                    mx[e >> 1] = fmaxf(mx[e >> 1], s[n][e]);
                }
            float c[2];
#pragma unroll
            for (int r = 0; r < 2; r++) {
                mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
                mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
                c[r] = rescale(m[r], mx[r]), m[r] = mx[r], l[r] *= c[r];
            }
#pragma unroll
            for (int n = 0; n < HD / 8; n++) o[n][0] *= c[0], o[n][1] *= c[0], o[n][2] *= c[1], o[n][3] *= c[1];
#pragma unroll
            for (int n = 0; n < PT_KEYS / 8; n++)
#pragma unroll
                for (int e = 0; e < 4; e++) s[n][e] = rescale(s[n][e], m[e >> 1]), l[e >> 1] += s[n][e];
            /* O += P V: P's C fragments are the A fragments of the next product */
#pragma unroll
            for (int kk = 0; kk < PT_KEYS / 16; kk++) {
                const uint32_t p0 = pack2(s[2 * kk][0], s[2 * kk][1]), p1 = pack2(s[2 * kk][2], s[2 * kk][3]);
                const uint32_t p2 = pack2(s[2 * kk + 1][0], s[2 * kk + 1][1]), p3 = pack2(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
                for (int n = 0; n < HD / 8; n++) {
                    const half *vp = vt + (n * 8 + g) * VS + kk * 16 + 2 * t;
                    mma16816(o[n], p0, p1, p2, p3, ld32(vp), ld32(vp + 8));
                }
            }
        }
        __syncthreads();                    /* ks and vt are written again */
    }
    if (!active) return;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    }
    half *oa = a.out + (long long)qa * a.out_stride + (kvh * G + head) * HD + 2 * t, *ob = oa + 8LL * a.out_stride;
#pragma unroll
    for (int n = 0; n < HD / 8; n++) {
        if (pa >= 0) *(__half2 *)(oa + n * 8) = __floats2half2_rn(o[n][0] / l[0], o[n][1] / l[0]);
        if (pb >= 0) *(__half2 *)(ob + n * 8) = __floats2half2_rn(o[n][2] / l[1], o[n][3] / l[1]);
    }
}

int attn_supported(int nh, int nkv, int hd) {
    return nkv > 0 && nh % nkv == 0 && nh / nkv <= MAXG && (hd == 16 || hd == 32 || hd == 64 || hd == 128);
}

long long attn_part_floats(int slices, int group, int hd) { return (long long)slices * (((2 * group + 3) & ~3) + group * hd); }

/* A decode attention launch gives each warp's first rounds of old keys shared memory (KvStage):
 * ATTN_STAGE_ROUNDS rounds (2 x 32 KB at head_dim 64; 1 and 4 were slower, v19), or as many as
 * max_seq keys need, and only under programmatic dependent launch, where the copies overlap the
 * kernel before. */
#ifndef ATTN_STAGE_ROUNDS
#define ATTN_STAGE_ROUNDS 2
#endif

template <int HD, bool CLUSTER>
static void launch_kv(cudaStream_t s, int pdl, int layer, dim3 grid, int cz, const AttnArgs *a) {
    static int most = -1;               /* what the kernel may ask for */
    if (most < 0) {
        cudaFuncAttributes fa;
        CUDA_CHECK(cudaFuncGetAttributes(&fa, attn_kv<HD, CLUSTER>));
        most = min(ATTN_STAGE_ROUNDS * KvStage<HD>::ROUND_BYTES, gpu_smem_optin() - (int)fa.sharedSizeBytes);
        most -= most % KvStage<HD>::ROUND_BYTES;
        CUDA_CHECK(cudaFuncSetAttribute(attn_kv<HD, CLUSTER>, cudaFuncAttributeMaxDynamicSharedMemorySize, most));
    }
    const int rounds = (a->max_seq + 16 * KV_WARPS - 1) / (16 * KV_WARPS);
    const int smem = pdl ? min(most, rounds * KvStage<HD>::ROUND_BYTES) : 0;
    LAUNCH_CLUSTER(pdl, cz, P_ATTN, layer, "attention", (attn_kv<HD, CLUSTER>), grid, KV_THREADS, smem, s, *a);
}

void k_attention(cudaStream_t s, int pdl, int layer, const AttnArgs *a) {
    if (a->splits < 1 || a->splits > ATTN_MAX_SPLITS) die("attention: %d slices, expected 1..%d", a->splits, ATTN_MAX_SPLITS);
    if (a->one_row) {
        if (!a->row) die("attention: one_row needs the queries' row (a.row)");
        const int G = a->nh / a->nkv, qt = 16 * (ATTN_WARPS / G);
        dim3 grid(a->nkv, (a->T + qt - 1) / qt);
        switch (a->hd) {
        case 16: LAUNCH_PDL(pdl, P_ATTN, layer, "attention_prompt", attn_prompt<16>, grid, ATTN_THREADS, 0, s, *a); return;
        case 32: LAUNCH_PDL(pdl, P_ATTN, layer, "attention_prompt", attn_prompt<32>, grid, ATTN_THREADS, 0, s, *a); return;
        case 64: LAUNCH_PDL(pdl, P_ATTN, layer, "attention_prompt", attn_prompt<64>, grid, ATTN_THREADS, 0, s, *a); return;
        case 128: LAUNCH_PDL(pdl, P_ATTN, layer, "attention_prompt", attn_prompt<128>, grid, ATTN_THREADS, 0, s, *a); return;
        }
    }
    /* blocks per (query, kv head): the slices a query of max_seq keys would take (the cut
     * itself follows L and a->splits alone, see attn_kv) */
    const int zs = min(a->splits, (a->max_seq + ATTN_SLICE_KEYS - 1) / ATTN_SLICE_KEYS);
    dim3 grid(a->nkv, a->T, zs);
    const int cz = gpu_sm90_paths() && a->T <= ATTN_CLUSTER_ROWS && zs > 1 ? zs : 0;
#define ATTN_KV(HD)                                             \
    if (cz) launch_kv<HD, true>(s, pdl, layer, grid, cz, a); \
    else launch_kv<HD, false>(s, pdl, layer, grid, 0, a);
    switch (a->hd) {
    case 16: ATTN_KV(16); break;
    case 32: ATTN_KV(32); break;
    case 64: ATTN_KV(64); break;
    case 128: ATTN_KV(128); break;
    default: die("attention: head_dim %d is not supported (16, 32, 64 or 128)", a->hd);
    }
#undef ATTN_KV
}
