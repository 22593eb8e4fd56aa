/* attention over the KV cache, for decode (one query per row) and prefill (every prompt
 * token) alike: softmax(q k^T / sqrt(head_dim)) v with an online softmax in fp32.
 * A block serves one (query, kv head) and the G query heads that share that kv head
 * (grouped-query attention), over one slice of the keys: a query of L keys is cut into
 * ceil(L / chunk) slices of chunk = max(ATTN_SLICE_KEYS, ceil(L / splits)) keys, so the cut
 * depends on L alone (a row's result is the same in any batch) and a short context is not
 * cut finer than a merge is worth. With more than one slice the last block to finish merges
 * them (flash-decoding), so a batch-1 step still spreads over several SMs. HD/8 lanes hold
 * one key (16 bytes each), a warp holds 32/(HD/8) keys. */
#include "kernels.cuh"
#include "gpu.h"
#include "launch.h"

enum { ATTN_THREADS = 256, ATTN_WARPS = ATTN_THREADS / 32, MAXG = 8 };
#ifndef ATTN_SLICE_KEYS
#define ATTN_SLICE_KEYS 64          /* the fewest keys a slice gets (tests/gpu/PERF_LOG.md, v6) */
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

template <int HD>
__global__ void __launch_bounds__(ATTN_THREADS) attn_kv(AttnArgs a) {
    constexpr int LPK = HD / 8, KPW = 32 / LPK, KPB = KPW * ATTN_WARPS;
    __shared__ float sm_m[ATTN_WARPS][MAXG], sm_l[ATTN_WARPS][MAXG], sm_acc[ATTN_WARPS][MAXG][HD];
    __shared__ int is_last;
    __shared__ float weight[ATTN_MAX_SPLITS][MAXG];
    pdl_launch_dependents();
    pdl_wait();
    const int kvh = blockIdx.x, t = blockIdx.y, sp = blockIdx.z, G = a.nh / a.nkv;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, sub = lane % LPK, slot = lane / LPK;
    const int row = a.row ? a.row[t] : t, L = a.pos[t] + 1;
    const int chunk = max(ATTN_SLICE_KEYS, (L + a.splits - 1) / a.splits), slices = (L + chunk - 1) / chunk;
    if (sp >= slices) return;                                   /* this query needs fewer slices */
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
    /* a slice's partial result: m[G], l[G] (padded to 4 floats), then acc[G][HD] */
    const int ml = (2 * G + 3) & ~3, stride = ml + G * HD;
    float *part = a.part + ((long long)(t * a.nkv + kvh) * a.splits) * stride;
    half *out = a.out + (long long)t * a.out_stride + kvh * G * HD;
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
            float *p = part + sp * stride;
            if (d == 0) p[g] = M, p[G + g] = S;
            p[ml + i] = A;
        }
    }
    if (slices == 1) return;
    /* the last block of this (query, kv head) merges the slices: each slice's weight per
     * head first, then every output as one pass of independent 16-byte loads */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) is_last = atomicAdd(&a.counter[t * a.nkv + kvh], 1) == slices - 1;
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    if (threadIdx.x < G) {
        const int g = threadIdx.x;
        float m[ATTN_MAX_SPLITS], M = -INFINITY, S = 0.f;
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++) {
            m[s] = s < slices ? __ldcg(part + s * stride + g) : -INFINITY;
            M = fmaxf(M, m[s]);
        }
#pragma unroll
        for (int s = 0; s < ATTN_MAX_SPLITS; s++)
            if (s < slices) S += __ldcg(part + s * stride + G + g) * rescale(m[s], M);
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
            float4 v = __ldcg((const float4 *)(part + s * stride + ml) + i);
            float e = weight[s][g];
            acc4.x += v.x * e, acc4.y += v.y * e, acc4.z += v.z * e, acc4.w += v.w * e;
        }
        __half2 *o = (__half2 *)(out + i * 4);
        o[0] = __floats2half2_rn(acc4.x, acc4.y);
        o[1] = __floats2half2_rn(acc4.z, acc4.w);
    }
    if (threadIdx.x == 0) a.counter[t * a.nkv + kvh] = 0;
}

int attn_supported(int nh, int nkv, int hd) {
    return nkv > 0 && nh % nkv == 0 && nh / nkv <= MAXG && (hd == 16 || hd == 32 || hd == 64 || hd == 128);
}

long long attn_part_floats(int slices, int group, int hd) { return (long long)slices * (((2 * group + 3) & ~3) + group * hd); }

void k_attention(cudaStream_t s, int pdl, int layer, const AttnArgs *a) {
    if (a->splits < 1 || a->splits > ATTN_MAX_SPLITS) die("attention: %d slices, expected 1..%d", a->splits, ATTN_MAX_SPLITS);
    dim3 grid(a->nkv, a->T, a->splits);
    switch (a->hd) {
    case 16: LAUNCH_PDL(pdl, P_ATTN, layer, "attention", attn_kv<16>, grid, ATTN_THREADS, 0, s, *a); break;
    case 32: LAUNCH_PDL(pdl, P_ATTN, layer, "attention", attn_kv<32>, grid, ATTN_THREADS, 0, s, *a); break;
    case 64: LAUNCH_PDL(pdl, P_ATTN, layer, "attention", attn_kv<64>, grid, ATTN_THREADS, 0, s, *a); break;
    case 128: LAUNCH_PDL(pdl, P_ATTN, layer, "attention", attn_kv<128>, grid, ATTN_THREADS, 0, s, *a); break;
    default: die("attention: head_dim %d is not supported (16, 32, 64 or 128)", a->hd);
    }
}
