/* attention over the KV cache: softmax(q k^T / sqrt(head_dim)) v with an online softmax in
 * fp32. Two kernels: attn_kv for queries of different rows (a decode step, one query a row),
 * attn_prompt (below) for many queries of one row (a prompt).
 * attn_kv: a block serves one (query, kv head) and the G query heads that share that kv head
 * (grouped-query attention), over one slice of the keys: a query of L keys is cut into
 * ceil(L / chunk) slices of chunk = max(ATTN_SLICE_KEYS, ceil(L / splits)) keys, so the cut
 * depends on L alone (a row's result is the same in any batch) and a short context is not
 * cut finer than a merge is worth. With more than one slice one block merges them
 * (flash-decoding: see attn_kv for which), so a batch-1 step still spreads over several SMs.
 * HD/8 lanes hold one key (16 bytes each), a warp holds 32/(HD/8) keys. */
#include <cooperative_groups.h>
#include "kernels.cuh"
#include "gpu.h"
#include "launch.h"
namespace cg = cooperative_groups;

enum { ATTN_THREADS = 256, ATTN_WARPS = ATTN_THREADS / 32, MAXG = 8 };
#ifndef ATTN_CLUSTER_ROWS
#define ATTN_CLUSTER_ROWS 8         /* up to this many rows a decode step merges slices in a cluster */
#endif
#ifndef ATTN_SLICE_KEYS
#define ATTN_SLICE_KEYS 96          /* the fewest keys a slice gets (tests/gpu/PERF_LOG.md, v6, v13) */
#endif

__device__ __forceinline__ void unpack8(int4 v, float *x) {
    const half2 *p = (const half2 *)&v;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 t = __half22float2(p[i]);
        x[2 * i] = t.x, x[2 * i + 1] = t.y;
    }
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
    for (int i = threadIdx.x; i < G * HD / 4; i += ATTN_THREADS) {
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

/* one slice of one (query, kv head): keys [sp * chunk, min(L, (sp + 1) * chunk)) for the G
 * q heads of kv head kvh. With one slice the result goes to out, else the slice's partial
 * result (m, l, acc) to part. HD/8 lanes hold one key (16 bytes each), a warp 32/(HD/8). */
template <int HD>
__device__ __forceinline__ void attend_slice(const AttnArgs &a, int t, int kvh, int sp, int L, int chunk, int slices,
                                             float *part, half *out) {
    constexpr int LPK = HD / 8, KPW = 32 / LPK, KPB = KPW * ATTN_WARPS;
    __shared__ float sm_m[ATTN_WARPS][MAXG], sm_l[ATTN_WARPS][MAXG], sm_acc[ATTN_WARPS][MAXG][HD];
    const int G = a.nh / a.nkv, ml = (2 * G + 3) & ~3, row = a.row ? a.row[t] : t;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, sub = lane % LPK, slot = lane / LPK;
    const int j0 = sp * chunk, j1 = min(L, j0 + chunk);
    const float scale = rsqrtf((float)HD) * 1.4426950409f;     /* scores in log2 units */

    float q[MAXG][8], m[MAXG], l[MAXG], acc[MAXG][8];
    const half *qp = a.q + (long long)t * a.q_stride + kvh * G * HD + sub * 8;
#pragma unroll
    for (int g = 0; g < MAXG; g++) {
        m[g] = -INFINITY, l[g] = 0.f;
#pragma unroll
        for (int d = 0; d < 8; d++) acc[g][d] = 0.f, q[g][d] = 0.f;
        if (g < G) {
            unpack8(*(const int4 *)(qp + g * HD), q[g]);
#pragma unroll
            for (int d = 0; d < 8; d++) q[g][d] *= scale;
        }
    }
    const long long base = (((long long)row * a.nkv + kvh) * a.max_seq) * HD + sub * 8;
    /* each round's keys are loaded while the round before is being used */
    auto load = [&](int jb, int4 &kr, int4 &vr) {
        const int j = jb + slot;
        kr = vr = make_int4(0, 0, 0, 0);
        if (j < j1) kr = __ldg((const int4 *)(a.kc + base + (long long)j * HD)), vr = __ldg((const int4 *)(a.vc + base + (long long)j * HD));
    };
    int4 kr, vr, kn, vn;
    load(j0 + warp * KPW, kr, vr);
    for (int jb = j0 + warp * KPW; jb < j1; jb += KPB) {
        const bool ok = jb + slot < j1;
        if (jb + KPB < j1) load(jb + KPB, kn, vn);
        float k[8], v[8];
        unpack8(kr, k);
        unpack8(vr, v);
#pragma unroll
        for (int g = 0; g < MAXG; g++) {
            if (g >= G) continue;
            float s = 0.f;
#pragma unroll
            for (int d = 0; d < 8; d++) s = fmaf(q[g][d], k[d], s);
#pragma unroll
            for (int o = LPK / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
            if (ok) {
                float mn = fmaxf(m[g], s), c = exp2f(m[g] - mn), p = exp2f(s - mn);
                l[g] = l[g] * c + p;
#pragma unroll
                for (int d = 0; d < 8; d++) acc[g][d] = fmaf(p, v[d], acc[g][d] * c);
                m[g] = mn;
            }
        }
        kr = kn, vr = vn;
    }
    /* merge the keys a warp held side by side, then the warps, in shared memory */
#pragma unroll
    for (int o = LPK; o < 32; o <<= 1) {
#pragma unroll
        for (int g = 0; g < MAXG; g++) {
            if (g >= G) continue;
            float mo = __shfl_xor_sync(0xffffffffu, m[g], o), lo = __shfl_xor_sync(0xffffffffu, l[g], o);
            float mn = fmaxf(m[g], mo), c1 = rescale(m[g], mn), c2 = rescale(mo, mn);
            l[g] = l[g] * c1 + lo * c2;
#pragma unroll
            for (int d = 0; d < 8; d++) acc[g][d] = acc[g][d] * c1 + __shfl_xor_sync(0xffffffffu, acc[g][d], o) * c2;
            m[g] = mn;
        }
    }
    if (slot == 0) {
#pragma unroll
        for (int g = 0; g < MAXG; g++) {
            if (g >= G) continue;
            if (sub == 0) sm_m[warp][g] = m[g], sm_l[warp][g] = l[g];
#pragma unroll
            for (int d = 0; d < 8; d++) sm_acc[warp][g][sub * 8 + d] = acc[g][d];
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * HD; i += ATTN_THREADS) {
        int g = i / HD, d = i % HD;
        float M = -INFINITY, S = 0.f, A = 0.f;
        for (int w = 0; w < ATTN_WARPS; w++) M = fmaxf(M, sm_m[w][g]);
        for (int w = 0; w < ATTN_WARPS; w++) {
            float e = rescale(sm_m[w][g], M);
            S += sm_l[w][g] * e, A += sm_acc[w][g][d] * e;
        }
        if (slices == 1) out[i] = f16(A / S);
        else {
            if (d == 0) part[g] = M, part[G + g] = S;
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
__global__ void __launch_bounds__(ATTN_THREADS) attn_kv(AttnArgs a) {
    __shared__ __align__(16) float res[CLUSTER ? ((2 * MAXG + 3) & ~3) + MAXG * HD : 1];
    __shared__ int is_last;
    pdl_launch_dependents();
    pdl_wait();
    const int kvh = blockIdx.x, t = blockIdx.y, sp = blockIdx.z, G = a.nh / a.nkv, L = a.pos[t] + 1;
    const int chunk = max(ATTN_SLICE_KEYS, (L + a.splits - 1) / a.splits), slices = (L + chunk - 1) / chunk;
    /* a slice's partial result: m[G], l[G] (padded to 4 floats), then acc[G][HD] */
    const int stride = ((2 * G + 3) & ~3) + G * HD;
    float *p0 = a.part + (long long)(t * a.nkv + kvh) * a.splits * stride;
    half *out = a.out + (long long)t * a.out_stride + kvh * G * HD;
    if (sp < slices)                                            /* else the query needs fewer slices */
        attend_slice<HD>(a, t, kvh, sp, L, chunk, slices, CLUSTER ? res : p0 + sp * stride, out);
    if (slices == 1) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CLUSTER) {
        cg::cluster_group cl = cg::this_cluster();
        cl.sync();                                              /* every slice is in its block */
        if (sp == 0) merge_slices<HD, false>([&](int s) { return (const float *)cl.map_shared_rank(res, s); }, slices, G, out);
        cl.sync();                                              /* keep them until read */
        return;
    }
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
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
}

template <int HD>
__global__ void __launch_bounds__(ATTN_THREADS) attn_prompt(AttnArgs a) {
    constexpr int KS = HD + 8, VS = PT_KEYS + 8;   /* padded rows: fragment reads hit 32 banks */
    __shared__ __align__(16) half ks[PT_KEYS * KS], vt[HD * VS];   /* K, and V transposed */
    __shared__ int kend;
    pdl_launch_dependents();
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
    dim3 grid(a->nkv, a->T, a->splits);
    const int cz = gpu_cc_major() >= 9 && a->T <= ATTN_CLUSTER_ROWS && a->splits > 1 ? a->splits : 0;
#define ATTN_KV(HD)                                                                                               \
    if (cz) LAUNCH_CLUSTER(pdl, cz, P_ATTN, layer, "attention", (attn_kv<HD, true>), grid, ATTN_THREADS, 0, s, *a); \
    else LAUNCH_PDL(pdl, P_ATTN, layer, "attention", (attn_kv<HD, false>), grid, ATTN_THREADS, 0, s, *a);
    switch (a->hd) {
    case 16: ATTN_KV(16); break;
    case 32: ATTN_KV(32); break;
    case 64: ATTN_KV(64); break;
    case 128: ATTN_KV(128); break;
    default: die("attention: head_dim %d is not supported (16, 32, 64 or 128)", a->hd);
    }
#undef ATTN_KV
}
