/* test_gemv: the decode GEMV (common/kernels/gemv.cu) against a CPU reference: fp64 sums of the
 * same fp16 inputs, RMSNorm rounded the way the kernel rounds it. It covers the epilogues
 * that store (lm_head), add (o_proj, down_proj) and gate (gate/up), with and without the
 * fused norm (and with rmsnorm first, as the model does beyond GEMV_NORM_ROWS rows), on
 * TinyLlama's shapes and ragged ones (N not a multiple of 16, K not of 32); every output is
 * written; each row is bit for bit the same at any batch size, and the same as the
 * register-streaming kernel's where another kernel ran (bulk copy: sm_90, up to 8 rows;
 * split: more rows); the plain kernel (fp16, up to 8 rows) meets the same bars in its own
 * order of sums. (RoPE + KV append, the fourth epilogue, is checked through the model:
 * tests/gpu/model_test.cu.) The int8 cases quantize W on the GPU (k_quantize_int8), check
 * its bits against the CPU's quantizer (model.h), and then hold the int8 GEMV to the same
 * bars against scale x sum(q x) in fp64.
 *   build/tests/gpu/test_gemv           the checks
 *   build/tests/gpu/test_gemv --bench   TinyLlama's GEMVs at batch 1, 8 and 32, one after
 *                                       another like a decode step (weights rotated through
 *                                       more memory than L2 holds): us and GB/s of weights;
 *                                       l2_us: the same launches on one copy, where it fits
 *                                       in half the L2 (the time without the DRAM: v17);
 *                                       each for fp16 and int8 weights (w=) */
#include <math.h>
#include <string.h>
#include <vector>
#include "check.h"
#include "kernel_data.cuh"
#include "kernels/kernels.cuh"
#include "gpu/launch.h"
#include "model/model.h"
#include "measure/stats.h"

static float h2f(half h) { return __half2float(h); }
static half f2h(float f) { return __float2half(f); }

struct Case { const char *name; int epi, N, K, B, norm, int8; };
struct DevW { const half *w; const int8_t *q; const float *scale; };   /* W on the GPU: fp16, or int8 and its scales */
static int g_pdl;                   /* launched as the model launches it (PDL on sm_90) */
static int g_bulk;                  /* k_gemv takes the bulk-copy kernel unless told to stream (gemv_has_bulk) */
static float *g_part;               /* the split kernel's scratch (B > GEMV_NORM_ROWS), for N <= 32000 */
static int *g_counter;

static void split_scratch(void) {
    CUDA_CHECK(cudaMalloc(&g_part, gemv_part_floats(32000) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&g_counter, 2000 * sizeof(int)));
    CUDA_CHECK(cudaMemset(g_counter, 0, 2000 * sizeof(int)));
}

/* what the kernel's output rows should be, in double: x normalized like rms_apply, then W x,
 * W(n, k) the weight as the kernel sees it (fp16, or q x scale) */
template <typename Wfn>
static std::vector<double> reference(const Case &c, Wfn W, const std::vector<half> &x, const std::vector<half> &nw,
                                     const std::vector<half> &y0) {
    const int rows = c.epi == EPI_SILU_MUL ? c.N / 2 : c.N;
    std::vector<double> out((size_t)c.B * rows), acc(c.N);
    std::vector<float> xn(c.K);
    for (int b = 0; b < c.B; b++) {
        const half *xb = &x[(size_t)b * c.K];
        float r = 1.f;
        if (c.norm) {
            double ss = 0;
            for (int k = 0; k < c.K; k++) ss += (double)h2f(xb[k]) * h2f(xb[k]);
            r = (float)(1.0 / sqrt(ss / c.K + 1e-5));
        }
        for (int k = 0; k < c.K; k++) xn[k] = c.norm ? h2f(f2h(h2f(nw[k]) * h2f(f2h(h2f(xb[k]) * r)))) : h2f(xb[k]);
        for (int n = 0; n < c.N; n++) {
            double s = 0;
            for (int k = 0; k < c.K; k++) s += W(n, k) * xn[k];
            acc[n] = s;
        }
        for (int n = 0; n < rows; n++) {
            double v = acc[n];
            if (c.epi == EPI_RESIDUAL) v += h2f(y0[(size_t)b * rows + n]);
            if (c.epi == EPI_SILU_MUL) {           /* gate and up rounded to fp16, then silu(gate) */
                const double gt = h2f(f2h((float)acc[n])), up = h2f(f2h((float)acc[rows + n]));
                v = h2f(f2h((float)(gt / (1.0 + exp(-gt))))) * up;
            }
            out[(size_t)b * rows + n] = v;
        }
    }
    return out;
}

/* y for rows [b0, b0 + B) of x; y starts as y0 (poison for the epilogues that only store);
 * force: FORCE_STREAM or FORCE_PLAIN runs that kernel; early: the epilogue's inputs read before
 * the wait (GemvArgs.epi_early) */
enum { FORCE_NONE, FORCE_STREAM, FORCE_PLAIN };
static std::vector<half> run(const Case &c, int b0, int B, DevW dW, const half *dx, const half *dnw,
                             const std::vector<half> &y0, int force = FORCE_NONE, int early = 0) {
    const int rows = c.epi == EPI_SILU_MUL ? c.N / 2 : c.N;
    std::vector<half> init(y0.begin() + (size_t)b0 * rows, y0.begin() + (size_t)(b0 + B) * rows);
    half *dy = to_gpu(init);
    GemvArgs a = {};
    a.w = dW.w, a.w8 = dW.q, a.scale = dW.scale, a.N = c.N, a.K = c.K, a.x = dx + (size_t)b0 * c.K, a.x_stride = c.K, a.B = B;
    a.norm_w = c.norm ? dnw : NULL, a.eps = 1e-5f, a.y = dy, a.y_stride = rows;
    a.stream = force == FORCE_STREAM, a.plain = force == FORCE_PLAIN;
    a.epi_early = early, a.part = g_part, a.counter = g_counter;
    half *dxn = NULL;
    if (c.norm && B > GEMV_NORM_ROWS) {         /* as the model does it: rmsnorm first */
        CUDA_CHECK(cudaMalloc(&dxn, (size_t)B * c.K * sizeof(half)));
        k_rmsnorm(0, g_pdl, -1, a.x, dnw, dxn, B, c.K, a.eps);
        a.x = dxn, a.norm_w = NULL;
    }
    k_gemv(0, g_pdl, P_LM_HEAD, -1, c.epi, &a);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<half> y(init.size());
    CUDA_CHECK(cudaMemcpy(y.data(), dy, y.size() * sizeof(half), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dy));
    if (dxn) CUDA_CHECK(cudaFree(dxn));
    return y;
}

/* W quantized on the GPU, as the model does at load; its int8 bits and scales must be the
 * CPU quantizer's (model.h), row by row. Returns them (q, sc) and points dW at them. */
static void quantize(const Case &c, const std::vector<half> &W, DevW &dW, std::vector<int8_t> &q, std::vector<float> &sc) {
    int8_t *dq;
    float *ds;
    CUDA_CHECK(cudaMalloc(&dq, (size_t)c.N * c.K));
    CUDA_CHECK(cudaMalloc(&ds, (size_t)c.N * sizeof(float)));
    k_quantize_int8(0, dW.w, dq, ds, c.N, c.K);
    q.resize((size_t)c.N * c.K), sc.resize(c.N);
    CUDA_CHECK(cudaMemcpy(q.data(), dq, q.size(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(sc.data(), ds, sc.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> row(c.K);
    std::vector<int8_t> qh(c.K);
    int differ = 0;
    for (int n = 0; n < c.N; n++) {
        for (int k = 0; k < c.K; k++) row[k] = h2f(W[(size_t)n * c.K + k]);
        const float s = quantize_row_int8(row.data(), c.K, qh.data());
        differ += memcmp(&s, &sc[n], sizeof s) || memcmp(qh.data(), &q[(size_t)n * c.K], c.K);
    }
    CHECK(differ == 0, "%s: %d of %d rows quantized on the GPU differ from the CPU quantizer's", c.name, differ, c.N);
    dW = {NULL, dq, ds};
}

static void check_case(const Case &c, uint64_t seed) {
    const int rows = c.epi == EPI_SILU_MUL ? c.N / 2 : c.N;
    std::vector<half> W = random_half((size_t)c.N * c.K, seed, 1.f / sqrtf((float)c.K) * 1.7f);
    if (c.int8)                         /* a row of zeros now and then: scale 0, and it must give 0 */
        for (int n = 3; n < c.N; n += 7) memset(&W[(size_t)n * c.K], 0, c.K * sizeof(half));
    std::vector<half> x = random_half((size_t)c.B * c.K, seed + 1, 1.f);
    std::vector<half> nw = random_half(c.K, seed + 2, 0.5f, 1.f);
    std::vector<half> y0 = c.epi == EPI_RESIDUAL ? random_half((size_t)c.B * rows, seed + 3, 1.f)
                                                 : std::vector<half>((size_t)c.B * rows, __ushort_as_half(0x7fff));
    half *dWh = to_gpu(W), *dx = to_gpu(x), *dnw = to_gpu(nw);
    DevW dW = {dWh, NULL, NULL};
    std::vector<int8_t> q;
    std::vector<float> sc;
    if (c.int8) quantize(c, W, dW, q, sc);
    auto weight = [&](int n, int k) {
        const size_t i = (size_t)n * c.K + k;
        return c.int8 ? q[i] * (double)sc[n] : (double)h2f(W[i]);
    };
    std::vector<half> y = run(c, 0, c.B, dW, dx, dnw, y0);
    std::vector<double> ref = reference(c, weight, x, nw, y0);
    double scale = 0;
    for (size_t i = 0; i < ref.size(); i++) scale = fmax(scale, fabs(ref[i]));
    /* every output written, and the worst error of |ref| + 5% of max |ref| under 4e-3 */
    auto near_ref = [&](const std::vector<half> &out, const char *kernel) {
        double worst = 0;
        int unwritten = 0;
        for (size_t i = 0; i < ref.size(); i++) {
            float v = h2f(out[i]);
            if (isnan(v)) unwritten++;
            else worst = fmax(worst, fabs(v - ref[i]) / (fabs(ref[i]) + 0.05 * scale));
        }
        CHECK(unwritten == 0, "%s%s: %d of %zu outputs not written", c.name, kernel, unwritten, ref.size());
        CHECK(worst < 4e-3, "%s%s: worst error %.2e of |ref| + 5%% of max |ref| (%.3f), expected < 4e-3", c.name, kernel,
              worst, scale);
        return worst;
    };
    const double worst = near_ref(y, "");
    const int plain = !c.int8 && c.B <= GEMV_NORM_ROWS;
    if (plain) near_ref(run(c, 0, c.B, dW, dx, dnw, y0, FORCE_PLAIN), " (plain kernel)");
    /* the same rows alone, their epilogue's inputs read early: bit for bit */
    int differ = 0;
    for (int b = 0; b < c.B; b += (c.B > 8 ? c.B / 8 : 1)) {
        std::vector<half> one = run(c, b, 1, dW, dx, dnw, y0, 0, 1);
        differ += memcmp(one.data(), &y[(size_t)b * rows], rows * sizeof(half)) != 0;
    }
    CHECK(differ == 0, "%s: %d rows differ from the same row run alone", c.name, differ);
    GemvArgs as = {};
    as.N = c.N, as.K = c.K, as.B = c.B, as.part = g_part;
    /* the split kernel ran, or the bulk one (which copies int8 rows only when K % 16 = 0) */
    const int other = c.B > GEMV_NORM_ROWS ? gemv_takes_split(&as) : g_bulk && (!c.int8 || c.K % 16 == 0);
    if (other) {                        /* the streaming kernel must agree */
        std::vector<half> ys = run(c, 0, c.B, dW, dx, dnw, y0, FORCE_STREAM);
        CHECK(!memcmp(ys.data(), y.data(), y.size() * sizeof(half)), "%s: the streaming kernel's bits differ from the %s kernel's",
              c.name, c.B > GEMV_NORM_ROWS ? "split" : "bulk");
    }
    printf("%-34s N=%5d K=%5d B=%2d norm=%d %s: worst %.1e, every output written, rows = rows alone%s%s\n", c.name,
           c.N, c.K, c.B, c.norm, c.int8 ? "int8" : "fp16", worst, other ? " = streaming kernel" : "",
           plain ? "; plain kernel near too" : "");
    CUDA_CHECK(cudaFree(dWh));
    CUDA_CHECK(cudaFree((void *)dW.q));
    CUDA_CHECK(cudaFree((void *)dW.scale));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dnw));
}

/* ---- --bench, first: what a kernel boundary costs, and what a grid barrier would cost
 * instead. An empty kernel on every SM, 200 of them captured in a CUDA graph (with and
 * without programmatic dependent launch): us per kernel is the boundary every fused
 * kernel pays. A persistent kernel (one block per SM) would replace it with a barrier
 * across the grid: each block's first thread arrives on a counter, and the last one to
 * arrive moves a generation number the others spin on. (docs/PERF_LOG.md, v17) ---- */
__global__ void empty_kernel(int) { pdl_wait(); }

__global__ void grid_barriers(unsigned *count, unsigned *gen, int n) {
    for (int i = 0; i < n; i++) {
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned g = *(volatile unsigned *)gen;
            __threadfence();
            if (atomicAdd(count, 1) == gridDim.x - 1) {
                *count = 0;
                __threadfence();
                atomicAdd(gen, 1);
            } else
                while (*(volatile unsigned *)gen == g) {}
            __threadfence();
        }
        __syncthreads();
    }
}

static void boundary_bench(int sms, int with_pdl) {
    enum { N = 200 };
    cudaStream_t st;
    CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int pdl = 0; pdl <= with_pdl; pdl++) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
        for (int i = 0; i < N; i++) LAUNCH_PDL(pdl, P_OTHER, -1, "empty_kernel", empty_kernel, sms, 256, 0, st, 0);
        CUDA_CHECK(cudaStreamEndCapture(st, &g));
        CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
        const Stats s = time_launches_us(1, [&](int) { CUDA_CHECK(cudaGraphLaunch(ge, 0)); });
        printf("boundary_bench kind=kernel pdl=%d us=%.2f range_us=%.2f-%.2f\n", pdl, s.median / N, s.min / N, s.max / N);
        CUDA_CHECK(cudaGraphExecDestroy(ge));
        CUDA_CHECK(cudaGraphDestroy(g));
    }
    unsigned *sync;
    CUDA_CHECK(cudaMalloc(&sync, 2 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(sync, 0, 2 * sizeof(unsigned)));
    int n = N;
    unsigned *count = sync, *gen = sync + 1;
    void *args[] = {&count, &gen, &n};
    const Stats s = time_launches_us(1, [&](int) {   /* cooperative: the launch fails unless every block is resident */
        CUDA_CHECK(cudaLaunchCooperativeKernel((void *)grid_barriers, sms, 256, args, 0, 0));
    });
    printf("boundary_bench kind=grid_barrier us=%.2f range_us=%.2f-%.2f\n", s.median / N, s.min / N, s.max / N);
    CUDA_CHECK(cudaFree(sync));
    CUDA_CHECK(cudaStreamDestroy(st));
}

/* ---- --bench: a decode step's GEMVs back to back, with the model's launches (PDL on sm_90) ---- */
static void bench(void) {
    GpuFacts f;
    gpu_facts(&f);
    const int pdl = gpu_sm90_paths();
    boundary_bench(f.sms, pdl);
    struct Op { const char *name; int epi, N, K, norm; } ops[] = {
        {"qkv", EPI_STORE, 2560, 2048, 1}, {"o", EPI_RESIDUAL, 2048, 2048, 0}, {"gate_up", EPI_SILU_MUL, 11264, 2048, 1},
        {"down", EPI_RESIDUAL, 2048, 5632, 0}, {"lm_head", EPI_STORE, 32000, 2048, 1}};
    const size_t pool_bytes = (size_t)1 << 30;     /* weights rotated through 1 GB: far more than L2 */
    half *pool, *x, *y, *nw;
    CUDA_CHECK(cudaMalloc(&pool, pool_bytes));
    CUDA_CHECK(cudaMemset(pool, 0x11, pool_bytes));   /* small finite fp16 values */
    CUDA_CHECK(cudaMalloc(&x, 32 * 5632 * sizeof(half)));
    CUDA_CHECK(cudaMemset(x, 0x22, 32 * 5632 * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&y, 32 * 32000 * sizeof(half)));
    CUDA_CHECK(cudaMemset(y, 0, 32 * 32000 * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&nw, 5632 * sizeof(half)));
    CUDA_CHECK(cudaMemset(nw, 0x33, 5632 * sizeof(half)));
    float *scale;                       /* int8: the same scales for every copy (0x3a3a3a3a: 7.1e-4) */
    CUDA_CHECK(cudaMalloc(&scale, 32000 * sizeof(float)));
    CUDA_CHECK(cudaMemset(scale, 0x3a, 32000 * sizeof(float)));
    for (int int8 = 0; int8 <= 1; int8++)
    for (int stream = 0; stream <= 1; stream++) {
        for (int B : {1, 8, 32})
            for (const Op &op : ops) {
                if (stream && B <= GEMV_NORM_ROWS && !gemv_has_bulk()) continue;   /* it streamed already */
                const size_t bytes = (size_t)op.N * op.K * (int8 ? 1 : sizeof(half));
                const int copies = (int)(pool_bytes / bytes), reps = 200;
                GemvArgs a = {};
                a.N = op.N, a.K = op.K, a.x = x, a.x_stride = op.K, a.B = B, a.eps = 1e-5f, a.y = y;
                a.y_stride = op.epi == EPI_SILU_MUL ? op.N / 2 : op.N;
                a.norm_w = op.norm && B <= GEMV_NORM_ROWS ? nw : NULL, a.stream = stream;
                a.part = g_part, a.counter = g_counter, a.scale = int8 ? scale : NULL;
                auto run = [&](int n) {
                    return time_launches_us(reps, [&](int i) {
                        if (int8) a.w8 = (const int8_t *)pool + (size_t)(i % n) * bytes;
                        else a.w = pool + (size_t)(i % n) * op.N * op.K;
                        k_gemv(0, pdl, P_LM_HEAD, -1, op.epi, &a);
                    });
                };
                const Stats s = run(copies);
                char l2[32] = "";
                if (2 * (long long)bytes <= f.l2_bytes) snprintf(l2, sizeof l2, " l2_us=%.2f", run(1).median);
                printf("gemv_bench w=%s path=%s op=%s B=%d us=%.2f range_us=%.2f-%.2f gbs=%.0f norm=%d%s\n",
                       int8 ? "int8" : "fp16", stream ? "stream" : "auto", op.name, B, s.median, s.min, s.max,
                       bytes / (s.median * 1e3), a.norm_w != NULL, l2);
            }
    }
    CUDA_CHECK(cudaFree(scale));
}

int main(int argc, char **argv) {
    split_scratch();
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        bench();
        return 0;
    }
    const Case cases[] = {
        {"lm_head, norm fused (16-row tiles)", EPI_STORE, 32000, 2048, 1, 1},
        {"lm_head-like, norm fused", EPI_STORE, 2560, 2048, 1, 1},
        {"lm_head-like, norm fused", EPI_STORE, 2560, 2048, 8, 1},
        {"lm_head-like, x from L1", EPI_STORE, 2560, 2048, 32, 0},
        {"lm_head-like, rmsnorm kernel first", EPI_STORE, 2560, 2048, 32, 1},
        {"gate/up + silu*mul, rmsnorm first", EPI_SILU_MUL, 11264, 2048, 32, 1},
        {"down_proj + residual", EPI_RESIDUAL, 2048, 5632, 1, 0},
        {"down_proj + residual", EPI_RESIDUAL, 2048, 5632, 19, 0},
        {"o_proj + residual", EPI_RESIDUAL, 2048, 2048, 3, 0},
        {"gate/up + silu*mul, norm fused", EPI_SILU_MUL, 11264, 2048, 1, 1},
        {"gate/up + silu*mul", EPI_SILU_MUL, 11264, 2048, 12, 0},
        {"gate/up + silu*mul, norm fused", EPI_SILU_MUL, 11264, 2048, 5, 1},
        {"ragged edges", EPI_STORE, 100, 200, 2, 1},
        {"ragged edges", EPI_STORE, 100, 200, 9, 0},
        {"ragged edges, K past a chunk", EPI_STORE, 100, 264, 9, 0},
        {"ragged edges + residual", EPI_RESIDUAL, 37, 1000, 20, 0},
        {"ragged edges + residual", EPI_RESIDUAL, 37, 72, 5, 0},
        {"K over stages, the last one short", EPI_RESIDUAL, 300, 1000, 3, 0},
        {"K over stages, the last one short", EPI_SILU_MUL, 96, 1320, 2, 1},
        {"K over stages, the last one short", EPI_SILU_MUL, 96, 1320, 17, 0},
        {"one tile", EPI_STORE, 16, 8, 1, 0},
        {"the fixture's o_proj", EPI_RESIDUAL, 64, 64, 4, 0},
        {"vocab-wide", EPI_STORE, 32000, 2048, 2, 1},
        {"down_proj + residual", EPI_RESIDUAL, 2048, 5632, 32, 0},
        {"Llama-2-7B down_proj + residual (x: 22 KB)", EPI_RESIDUAL, 4096, 11008, 1, 0},
        /* int8 weights: batch 1 and 8 (the bulk kernel on sm_90: full and short rings; 8 rows of
         * K = 2048 fill its 32 KB of x), 32 (split), ragged shapes (K % 16 = 8 streams even at
         * batch 1 on sm_90) */
        {"int8 lm_head, norm fused", EPI_STORE, 32000, 2048, 1, 1, 1},
        {"int8 qkv-like, norm fused", EPI_STORE, 2560, 2048, 1, 1, 1},
        {"int8 o_proj + residual", EPI_RESIDUAL, 2048, 2048, 1, 0, 1},
        {"int8 gate/up + silu*mul, norm fused", EPI_SILU_MUL, 11264, 2048, 1, 1, 1},
        {"int8 down_proj + residual", EPI_RESIDUAL, 2048, 5632, 1, 0, 1},
        {"int8 Llama-2-7B down_proj + residual (x: 22 KB)", EPI_RESIDUAL, 4096, 11008, 1, 0, 1},
        {"int8 o_proj + residual", EPI_RESIDUAL, 2048, 2048, 8, 0, 1},
        {"int8 gate/up + silu*mul, norm fused", EPI_SILU_MUL, 11264, 2048, 8, 1, 1},
        {"int8 lm_head-like, rmsnorm kernel first", EPI_STORE, 2560, 2048, 32, 1, 1},
        {"int8 gate/up + silu*mul, rmsnorm first", EPI_SILU_MUL, 11264, 2048, 32, 1, 1},
        {"int8 down_proj + residual", EPI_RESIDUAL, 2048, 5632, 32, 0, 1},
        {"int8 ragged edges", EPI_STORE, 100, 200, 1, 1, 1},
        {"int8 ragged edges", EPI_STORE, 100, 208, 1, 1, 1},
        {"int8 ragged edges, K past a chunk", EPI_STORE, 100, 264, 9, 0, 1},
        {"int8 ragged edges + residual", EPI_RESIDUAL, 37, 1000, 20, 0, 1},
        {"int8 K over stages, the last one short", EPI_RESIDUAL, 300, 2320, 1, 0, 1},
        {"int8 K over stages, the last one short", EPI_SILU_MUL, 96, 2320, 17, 0, 1},
        {"int8 one tile", EPI_STORE, 16, 8, 1, 0, 1},
        {"int8 the fixture's o_proj", EPI_RESIDUAL, 64, 64, 4, 0, 1},
    };
    g_pdl = gpu_sm90_paths();
    g_bulk = gemv_has_bulk();
    uint64_t seed = 1;
    for (const Case &c : cases) check_case(c, seed += 10);
    return check_done("test_gemv");
}
