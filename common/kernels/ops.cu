/* kernels: weights and the token path (prefill and large-batch decode). The decode GEMV is
 * in gemv.cu, attention in attention.cu, the eager step's PyTorch-like kernels in eager.cu. */
#include "kernels/kernels.cuh"
#include "gpu/gpu.h"
#include "gpu/launch.h"
#include "model/model.h"

static int grid_for(long long n, int threads) {
    long long g = (n + threads - 1) / threads;
    return (int)(g < 1 ? 1 : g > 16384 ? 16384 : g);
}

/* ---------------------------------------------------------------- weights */
__global__ void synth_weights(half *dst, long long n, uint64_t seed, int tensor_index, int is_norm) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        dst[i] = f16(synth_value(seed, tensor_index, i, is_norm));
}
void k_synth_fill(cudaStream_t s, half *dst, long long n, uint64_t seed, int tensor_index, int is_norm) {
    LAUNCH(P_OTHER, -1, "synth_weights", synth_weights, grid_for(n, 256), 256, 0, s, dst, n, seed, tensor_index, is_norm);
}

__global__ void convert_to_fp16(half *dst, const void *src, long long n, int src_is_f32) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        float v = src_is_f32 ? ((const float *)src)[i]
                             : __uint_as_float((unsigned)((const uint16_t *)src)[i] << 16);
        dst[i] = f16(v);
    }
}
void k_convert(cudaStream_t s, half *dst, const void *src, long long n, int src_is_f32) {
    LAUNCH(P_OTHER, -1, "convert_to_fp16", convert_to_fp16, grid_for(n, 256), 256, 0, s, dst, src, n, src_is_f32);
}

/* int8 weight-only: each output row of a linear layer gets an fp32 scale = max |w| / 127, and
 * q = w / scale rounded half to even into [-127, 127]; the GEMV computes scale x sum(q x) with
 * fp32 sums. Here: one block per output row; the row's max |w| (a max: exact in any order), its
 * scale, and q, by the functions the CPU reference calls (model.h), so the two agree bit for
 * bit. */
__global__ void quantize_int8(const half *w, int8_t *q, float *scale, int cols) {
    const half *row = w + (long long)blockIdx.x * cols;
    __shared__ float red[32];
    float m = 0.f;
    for (int k = threadIdx.x; k < cols; k += blockDim.x) m = fmaxf(m, fabsf(f32(row[k])));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    m = 0.f;
    for (int i = 0; i < (int)(blockDim.x >> 5); i++) m = fmaxf(m, red[i]);
    const float s = int8_scale(m);
    if (threadIdx.x == 0) scale[blockIdx.x] = s;
    for (int k = threadIdx.x; k < cols; k += blockDim.x) q[(long long)blockIdx.x * cols + k] = (int8_t)int8_round(f32(row[k]), s);
}
void k_quantize_int8(cudaStream_t s, const half *w, int8_t *q, float *scale, int rows, int cols) {
    LAUNCH(P_OTHER, -1, "quantize_int8", quantize_int8, rows, 256, 0, s, w, q, scale, cols);
}

/* The unfused int8 path: a layer's weights back to fp16 in a scratch buffer, f16(q x scale),
 * 8 a thread (cols % 8 = 0). It reads 1 byte a weight and writes 2, and the fp16 GEMV or GEMM
 * after it reads those 2 again: 5 bytes a weight where fp16 alone reads 2. It waits for the
 * kernel before (PDL) before it writes: that one may still be reading the scratch. */
__global__ void dequantize_int8(const int8_t *q, const float *scale, half *w, long long n8, int cols8) {
    pdl_wait();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n8; i += (long long)gridDim.x * blockDim.x) {
        const int2 v = ((const int2 *)q)[i];
        const float s = scale[i / cols8];
        const int8_t *b = (const int8_t *)&v;
        int4 out;
        half *h = (half *)&out;
#pragma unroll
        for (int j = 0; j < 8; j++) h[j] = f16(b[j] * s);
        ((int4 *)w)[i] = out;
    }
}
void k_dequantize_int8(cudaStream_t s, int pdl, int layer, const int8_t *q, const float *scale, half *w, int rows,
                       int cols) {
    const long long n8 = (long long)rows * cols / 8;
    g_launch.weight_bytes += (long long)rows * cols * 3 + 4LL * rows;    /* int8 and scales read, fp16 written */
    op_cost((double)rows * cols * 3 + 4.0 * rows, 0);
    LAUNCH_PDL(pdl, P_DEQUANT, layer, "dequantize_int8", dequantize_int8, grid_for(n8, 256), 256, 0, s, q, scale, w, n8, cols / 8);
}

__global__ void weights_checksum(const half *w, long long n, unsigned long long *sum) {
    unsigned long long acc = 0;
    const uint16_t *b = (const uint16_t *)w;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        acc += synth_mix(((uint64_t)i << 16) | b[i]);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}
void k_checksum(cudaStream_t s, const half *w, long long n, unsigned long long *sum) {
    LAUNCH(P_OTHER, -1, "weights_checksum", weights_checksum, grid_for(n, 256), 256, 0, s, w, n, sum);
}

/* inv_freq = 1 / theta^(2i / hd), and cos/sin of position p x inv_freq in fp32, rounded to
 * fp16: LlamaRotaryEmbedding's arithmetic, which the eager step runs op by op each step
 * (from inv_freq, written here) and every other path reads from this table: the same bits. */
__global__ void rope_table(half *cos_t, half *sin_t, float *inv_freq, int max_seq, int hd, float theta) {
    int half_hd = hd / 2;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < max_seq * half_hd; j += gridDim.x * blockDim.x) {
        int p = j / half_hd, i = j % half_hd;
        float inv = 1.0f / powf(theta, (float)(2 * i) / (float)hd);
        float a = (float)p * inv;
        cos_t[j] = f16(cosf(a));
        sin_t[j] = f16(sinf(a));
        if (p == 0) inv_freq[i] = inv;
    }
}
void k_rope_table(cudaStream_t s, half *cos_t, half *sin_t, float *inv_freq, int max_seq, int head_dim, float theta) {
    LAUNCH(P_ROPE, -1, "rope_table", rope_table, grid_for((long long)max_seq * head_dim / 2, 256), 256, 0, s,
           cos_t, sin_t, inv_freq, max_seq, head_dim, theta);
}

/* ---------------------------------------------------------------- the token path */
__global__ void embed(const int *tok, const half *E, half *out, int dim) {
    pdl_wait();
    const int4 *src = (const int4 *)(E + (long long)tok[blockIdx.x] * dim);
    int4 *dst = (int4 *)(out + (long long)blockIdx.x * dim);
    for (int i = threadIdx.x; i < dim / 8; i += blockDim.x) dst[i] = src[i];
}
void k_embed(cudaStream_t s, int pdl, const int *tok, const half *E, half *out, int T, int dim) {
    op_cost(4.0 * T + 4.0 * T * dim, 0);                     /* ids; a row of E read, written */
    LAUNCH_PDL(pdl, P_EMBED, -1, "embed", embed, T, 128, 0, s, tok, E, out, dim);
}

/* the same arithmetic, in the same order, as the GEMV's norm prologue (row_sumsq). A row of
 * up to NORM_HELD x 256 values is read once, into registers, and the weights before the wait
 * for the kernel before (they do not depend on it); longer rows read the rest twice. */
enum { NORM_HELD = 8 };
__global__ void rmsnorm(const half *x, const half *w, half *out, int dim, float eps) {
    half xv[NORM_HELD], wv[NORM_HELD];
#pragma unroll
    for (int j = 0; j < NORM_HELD; j++) {
        const int i = threadIdx.x + j * NORM_THREADS;
        wv[j] = i < dim ? w[i] : __ushort_as_half(0);
    }
    pdl_wait();
    const half *xr = x + (long long)blockIdx.x * dim;
    half *o = out + (long long)blockIdx.x * dim;
    float ss = 0.f;
#pragma unroll
    for (int j = 0; j < NORM_HELD; j++) {
        const int i = threadIdx.x + j * NORM_THREADS;
        xv[j] = i < dim ? xr[i] : __ushort_as_half(0);
    }
#pragma unroll
    for (int j = 0; j < NORM_HELD; j++)
        if (threadIdx.x + j * NORM_THREADS < dim) ss = fmaf(f32(xv[j]), f32(xv[j]), ss);
    for (int i = threadIdx.x + NORM_HELD * NORM_THREADS; i < dim; i += NORM_THREADS) ss = fmaf(f32(xr[i]), f32(xr[i]), ss);
    const float r = rms_scale(block_sum(ss), dim, eps);
#pragma unroll
    for (int j = 0; j < NORM_HELD; j++) {
        const int i = threadIdx.x + j * NORM_THREADS;
        if (i < dim) o[i] = rms_apply(xv[j], r, wv[j]);
    }
    for (int i = threadIdx.x + NORM_HELD * NORM_THREADS; i < dim; i += NORM_THREADS) o[i] = rms_apply(xr[i], r, w[i]);
}
void k_rmsnorm(cudaStream_t s, int pdl, int layer, const half *x, const half *w, half *out, int T, int dim,
               float eps) {
    op_cost(4.0 * T * dim + 2.0 * dim, 0);
    LAUNCH_PDL(pdl, P_NORM, layer, "rmsnorm", rmsnorm, T, NORM_THREADS, 0, s, x, w, out, dim, eps);
}

__global__ void rope_kv_append(half *qkv, const int *row, const int *pos, const half *cos_t, const half *sin_t,
                               half *kc, half *vc, int nh, int nkv, int hd, int max_seq) {
    int t = blockIdx.x, hh = hd / 2, p = pos[t];
    half *x = qkv + (long long)t * (nh + 2 * nkv) * hd;
    long long rowbase = (long long)row[t] * nkv * max_seq;
    for (int j = threadIdx.x; j < (nh + nkv) * hh; j += blockDim.x) {
        int head = j / hh, i = j % hh;
        half a = x[head * hd + i], b = x[head * hd + i + hh];
        rope_pair(a, b, cos_t[p * hh + i], sin_t[p * hh + i]);
        half *d = head < nh ? x + head * hd : kc + ((rowbase + (long long)(head - nh) * max_seq + p) * hd);
        d[i] = a;
        d[i + hh] = b;
    }
    for (int j = threadIdx.x; j < nkv * hd; j += blockDim.x)
        vc[(rowbase + (long long)(j / hd) * max_seq + p) * hd + j % hd] = x[(nh + nkv) * hd + j];
}
void k_rope_kv_append(cudaStream_t s, int layer, half *qkv, const int *row, const int *pos,
                      const half *cos_t, const half *sin_t, half *kc, half *vc,
                      int T, int nh, int nkv, int hd, int max_seq) {
    op_cost(2.0 * T * (nh + 2 * nkv) * hd * sizeof(half), 0);   /* q, k, v read; q, k, v written */
    LAUNCH(P_ROPE, layer, "rope_kv_append", rope_kv_append, T, 256, 0, s, qkv, row, pos, cos_t, sin_t, kc, vc,
           nh, nkv, hd, max_seq);
}

__global__ void silu_mul(const half *gu, half *act, int T, int ffn_dim) {
    long long n = (long long)T * ffn_dim;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n; j += (long long)gridDim.x * blockDim.x) {
        long long t = j / ffn_dim, i = j % ffn_dim;
        const half *r = gu + t * 2 * ffn_dim;
        act[j] = f16(f32(f16(silu_f(f32(r[i])))) * f32(r[ffn_dim + i]));
    }
}
void k_silu_mul(cudaStream_t s, int layer, const half *gu, half *act, int T, int ffn_dim) {
    op_cost(6.0 * T * ffn_dim, 0);                              /* gate and up read, act written */
    LAUNCH(P_SILU_MUL, layer, "silu_mul", silu_mul, grid_for((long long)T * ffn_dim, 256), 256, 0, s, gu, act, T, ffn_dim);
}

__global__ void argmax(const half *logits, int vocab, int *tok, int *pos, int advance) {
    __shared__ float bv[32];
    __shared__ int bi[32];
    pdl_wait();
    const half *x = logits + (long long)blockIdx.x * vocab;
    float best = -INFINITY;
    int idx = 0x7fffffff;
    /* 8 logits a load where rows are 16-byte aligned; i grows in each thread: the first max is kept */
    const int vec = vocab % 8 ? 0 : vocab;
#pragma unroll 4
    for (int i = 8 * threadIdx.x; i < vec; i += 8 * blockDim.x) {
        const int4 v = *(const int4 *)(x + i);
        const half *h = (const half *)&v;
#pragma unroll
        for (int e = 0; e < 8; e++)
            if (f32(h[e]) > best) best = f32(h[e]), idx = i + e;
    }
    for (int i = vec + threadIdx.x; i < vocab; i += blockDim.x)
        if (f32(x[i]) > best) best = f32(x[i]), idx = i;
    for (int o = 16; o > 0; o >>= 1) {
        float v = __shfl_xor_sync(0xffffffffu, best, o);
        int j = __shfl_xor_sync(0xffffffffu, idx, o);
        if (v > best || (v == best && j < idx)) best = v, idx = j;
    }
    if ((threadIdx.x & 31) == 0) bv[threadIdx.x >> 5] = best, bi[threadIdx.x >> 5] = idx;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++)
            if (bv[w] > best || (bv[w] == best && bi[w] < idx)) best = bv[w], idx = bi[w];
        tok[blockIdx.x] = idx == 0x7fffffff ? 0 : idx;
        if (pos) pos[blockIdx.x] += advance;
    }
}
void k_argmax(cudaStream_t s, int pdl, const half *logits, int B, int vocab, int *tok, int *pos, int advance) {
    op_cost(2.0 * B * vocab, 0);
    LAUNCH_PDL(pdl, P_ARGMAX, -1, "argmax", argmax, B, 1024, 0, s, logits, vocab, tok, pos, advance);
}
