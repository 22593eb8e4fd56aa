/* gemv_curve: the batch-1 GEMV's time against its size, fp16 and int8 (gemv_curve.h). */
#include <math.h>
#include <stdint.h>
#include "gpu/gemv_curve.h"
#include "gpu/gpu.h"
#include "kernels/kernels.cuh"
#include "measure/timer.h"

/* Squares and rectangles at the ends of the range, then each model's five decode matrices:
 * qkv (q, k and v in one W), o, gate/up (in one W), down, lm_head. */
const GemvShape GEMV_CURVE[GEMV_CURVE_SHAPES] = {
    {"w512x1024", "", "1:2", 512, 1024},                /*   1.0 MB in fp16 */
    {"sq1024", "", "square", 1024, 1024},               /*   2.1 */
    {"tl_o", "TinyLlama", "o", 2048, 2048},             /*   8.4 */
    {"tl_qkv", "TinyLlama", "qkv", 2560, 2048},         /*  10.5 */
    {"tl_down", "TinyLlama", "down", 2048, 5632},       /*  23.1 */
    {"7b_o", "Llama-2-7B", "o", 4096, 4096},            /*  33.6 */
    {"tl_gate_up", "TinyLlama", "gate/up", 11264, 2048},/*  46.1 */
    {"7b_down", "Llama-2-7B", "down", 4096, 11008},     /*  90.2 */
    {"7b_qkv", "Llama-2-7B", "qkv", 12288, 4096},       /* 100.7 */
    {"tl_lm_head", "TinyLlama", "lm_head", 32000, 2048},/* 131.1 */
    {"sq8192", "", "square", 8192, 8192},               /* 134.2 */
    {"7b_gate_up", "Llama-2-7B", "gate/up", 22016, 4096},/* 180.4 */
    {"7b_lm_head", "Llama-2-7B", "lm_head", 32000, 4096},/* 262.1 */
    {"w16384x8192", "", "2:1", 16384, 8192},            /* 268.4 */
};

int gemv_curve(double copy_gbs, double max_ms, GemvPoint *out) {
    GpuFacts g;
    gpu_facts(&g);
    double most = 0;                    /* the largest fp16 matrix timed, bytes */
    int maxN = 0, maxK = 0;
    for (int i = 0; i < GEMV_CURVE_SHAPES; i++) {
        const GemvShape *s = &GEMV_CURVE[i];
        const double b = 2.0 * s->N * s->K;
        if (b > copy_gbs * 1e6 * max_ms) continue;
        most = fmax(most, b), maxN = s->N > maxN ? s->N : maxN, maxK = s->K > maxK ? s->K : maxK;
    }
    /* the rotation: at least 4x the L2 and two copies of the largest matrix, so a copy has left
     * the L2 by the time its turn comes again */
    const size_t pool_bytes = (size_t)fmax(4.0 * g.l2_bytes, 2 * most) + 256;
    void *pool;
    half *x, *y;
    float *scale;
    CUDA_CHECK(cudaMalloc(&pool, pool_bytes));
    CUDA_CHECK(cudaMemset(pool, 0x11, pool_bytes));       /* fp16 5.8e-4 (0x1111), int8 17: finite, no overflow */
    CUDA_CHECK(cudaMalloc(&x, (size_t)maxK * sizeof(half)));
    CUDA_CHECK(cudaMemset(x, 0x22, (size_t)maxK * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&y, (size_t)maxN * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&scale, (size_t)maxN * sizeof(float)));
    CUDA_CHECK(cudaMemset(scale, 0x3a, (size_t)maxN * sizeof(float)));   /* 7.1e-4 */
    const int pdl = gpu_sm90_paths(), reps = 50;
    int n = 0;
    for (int i = 0; i < GEMV_CURVE_SHAPES; i++) {
        const GemvShape *s = &GEMV_CURVE[i];
        if (2.0 * s->N * s->K > copy_gbs * 1e6 * max_ms) continue;
        for (int int8 = 0; int8 <= 1; int8++) {
            const size_t w_bytes = (size_t)s->N * s->K * (int8 ? 1 : 2);
            const int copies = (int)(pool_bytes / w_bytes);
            GemvArgs a = {};
            a.N = s->N, a.K = s->K, a.x = x, a.x_stride = s->K, a.B = 1, a.eps = 1e-5f, a.y = y, a.y_stride = s->N;
            a.scale = int8 ? scale : NULL;
            out[n].us = time_launches_us(reps, [&](int r) {
                if (int8) a.w8 = (const int8_t *)pool + (size_t)(r % copies) * w_bytes;
                else a.w = (const half *)((const char *)pool + (size_t)(r % copies) * w_bytes);
                k_gemv(0, pdl, P_OTHER, -1, EPI_STORE, &a);
            });
            out[n].shape = s, out[n].int8 = int8;
            out[n].bytes = (double)w_bytes + (int8 ? 4.0 * s->N : 0);
            n++;
        }
    }
    CUDA_CHECK(cudaFree(pool));
    CUDA_CHECK(cudaFree(x));
    CUDA_CHECK(cudaFree(y));
    CUDA_CHECK(cudaFree(scale));
    return n;
}
