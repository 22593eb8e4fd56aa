/* Day 09 · How far from the floor?
 *
 * One generate is two jobs. The prefill pushes the whole prompt through the model at once and
 * ends with the first new token: TTFT. Each later token is one decode step: TPOT. So
 * total = TTFT + (N - 1) x TPOT, never total / N (mistake #6). A decode step reads every weight
 * once: TPOT >= W / bandwidth. A prefill also does 2 x params x tokens FLOP:
 * TTFT >= max(FLOP / peak, W / bandwidth). The week's output is the ratio TPOT / floor, in the
 * lesson's table: 1-1.5 suspect a missing sync; 1.5-3 memory-bound; 3-6 host overhead of the
 * order of the GPU work; over 6 overhead dominates.
 *
 * The lesson measures Hugging Face eager, where Python and PyTorch's dispatcher spend 30-50 us of
 * CPU on every op. The kit launches from C, so its headline rows ("emulated HF eager") run the
 * same eager step (PyTorch's kernels, 903 launches) with a host busy-wait before each launch,
 * drawn from the gaps of a real torch.profiler trace (gpu/dispatch.h; --dispatch-us sets its
 * median, default 14 us; --dispatch-from reads your trace). The bare C rows are the kit's own.
 *
 * Build and run:   make day09      (or: make bin/day09_ttft_tpot && bin/day09_ttft_tpot
 *                                   [--model DIR] [--dispatch-us N] [--dispatch-from TRACE] [--verbose])
 *
 * What it prints (rows in results/rows.tsv) and what to expect on a T4: the lesson's figures,
 * datasheet arithmetic, or day11's forecast of the reference runs for a T4 (`forecast_t4_*`,
 * theory column; answers/reference/README.md says what those runs measured on the H200):
 *   1. floors     datasheet: 2.2 GB / 320 GB/s = 6.9 ms a token; a 200-token TTFT the lesson's
 *                 max(compute 6.8 ms, bytes 6.9 ms). The theory column of `tpot_ms`, `ttft_ms`.
 *   2. 3 ways     two generates subtracted, a streamer's timestamps, CUDA events around a loop;
 *                 then the graph step, where a lost sync would show as a step many times too
 *                 short. The lesson: within 10-20%. `tpot_ms_sub`, `_stream`, `_events` (`_graph`).
 *   3. the ratio  TTFT and TPOT from the same five generates. The lesson: TPOT 15-30 ms, ratio
 *                 2-4, TTFT 15-40 ms, TTFT / TPOT 2-5. Forecast: `forecast_t4_tpot_ms_eager_b1_d14`
 *                 25.7-26.9 ms (H200 runs), over 6.9 a ratio of 3.7-3.9 (the table's 3-6 row),
 *                 its kernels (`forecast_t4_gpu_ms_per_step_eager_b1_d14` 9.2 ms (H200 runs))
 *                 under the host's draws. `tpot_ms`, `ratio`, `ttft_ms`, `ttft_over_tpot`.
 *   4. by mode    eager, graph_eager, fused, graph, with the dispatcher (`_d14`) and bare C: the
 *                 ratio moves with the launches, not the bytes. Forecast: graph with the draws
 *                 `forecast_t4_tpot_ms_graph_b1_d14` 9.8-9.9 ms (H200 runs), the lesson's compiled
 *                 step close to 8 ms; bare C eager `forecast_t4_tpot_ms_eager_b1_d0` 9.6-9.8 ms at
 *                 `forecast_t4_busy_eager_b1_d0` 94-97% busy (H200 runs), nearly kernel-bound.
 *                 `tpot_ms_eager`, `dispatch_cost_ms` (what Python costs), `tpot_ms_graph`.
 *   5. total / N  a 200-token prompt eager, a 1024-token one on the graph step; the lesson: at
 *                 N = 8 up to 50% too high. `total_over_n_ms_8_long` (its theory: the TPOT).
 *   6. prefill    intensity = tokens, against the ridge (datasheet: 65 TFLOP/s / 320 GB/s = 203
 *                 on a T4): below it the prefill is memory-bound. `prefill_tflops_<tokens>`.
 *   7. int8       unfused (each layer written back to fp16: more bytes) and fused (the GEMV reads
 *                 int8), against the int8 floor (datasheet arithmetic on a T4: the kit's 1.17 GB
 *                 of int8 weights / 320 GB/s = 3.65 ms) and the 16-bit one. `ratio16_int8_graph`.
 *   7b. why      each GEMV alone on 14 shapes (the setting of gpu/gemv_curve.cu: 1 MB to 268 MB in
 *                fp16), fitted to time = c + bytes / (bw x e) (the timeline model's fit): int8 halves
 *                the bytes, not c, so a TinyLlama layer's GEMVs gain `gemv_int8_speedup_tl_layer`
 *                1.14-1.18x (H200), Llama-2-7B's `gemv_int8_speedup_7b_layer` 1.61x (H200), where the
 *                lesson's 1.47x was a whole step. They forecast the int8 step, `int8_step_from_curve_ms`'s
 *                theory 0.713-0.731 ms (H200), measured `int8_step_from_curve_ms` 0.756-0.764 ms
 *                (H200). A T4 stops near the shapes' limit of 64 MB.
 *   8. persistent beyond the week, one kernel a step; a T4 (sm_75) prints `persistent: not run`.
 * By default: the GPU in one line and each section's answers (38 lines on an H200); --verbose adds
 * every row and reading. A TPOT or TTFT under its floor is a measurement error (exit 1). It proves
 * acceptance question 3 and self-test 2, corrects mistake #6, and measures the loop's step 3 for day12.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "args.h"
#include "measure/timer.h"
#include "gpu/gpu.h"
#include "gpu/dispatch.h"
#include "gpu/gpu_model.h"
#include "gpu/gemv_curve.h"
#include "gpu/launch.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "model/theory.h"
#include "measure/replay.h"
#include "report/chart.h"

enum { PROMPT = 200, LONG_PROMPT = 1024, NEW = 65, REPS = 5, MAX_PROMPT = 2048 };
static const int SWEEP[] = {16, 64, 200, 512, 1024, 2000};   /* a prompt must leave the KV cache a slot */

static const char USAGE[] =
    "usage: day09_ttft_tpot [--model DIR] [--dispatch-us N] [--dispatch-from TRACE] [--verbose]\n"
    "  TTFT and TPOT against their floors for this GPU: three ways of measuring them, the\n"
    "  ratio TPOT / floor in the lesson's table, total / N, a prompt-length sweep across the\n"
    "  ridge point, and TPOT in every mode, with and without the emulated dispatcher; beyond the\n"
    "  week, persistent mode (one kernel per step) where this GPU runs it.\n"
    "  --model DIR       config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n"
    "  --dispatch-us N   the emulated dispatcher's median cost per launch (default 14 us, the median of\n"
    "                    a real PyTorch trace's host time per launch; its mean, higher, is the row dispatch_mean_us)\n"
    "  --dispatch-from TRACE  draw the dispatcher's cost from your torch.profiler trace instead (its\n"
    "                    median, or --dispatch-us's)\n"
    "  --verbose         every row, the full GPU block and the readings, not only the answers\n";

/* --verbose: every row and line; by default the rows in HEADLINES (the lesson's answers, in its
 * order) and the lines that are not a detail() (rows.h) */
static int g_verbose;
static const char *const HEADLINES[] = {
    "ttft_ms", "tpot_ms", "ratio", "ttft_over_tpot",                                     /* 3 */
    "tpot_ms_eager", "dispatch_cost_ms", "tpot_ms_graph_eager", "tpot_ms_fused", "tpot_ms_graph", /* 4 */
    "total_over_n_ms_8", "total_over_n_ms_8_long",                                       /* 5 */
    "prefill_intensity_200",                                                             /* 6 */
    "tpot_ms_int8_unfused_graph", "tpot_ms_int8_graph",                                  /* 7 */
    "tpot_ms_persistent",                                                                /* 8 */
    NULL};
static double spread_pct(const double *x, int n) { return 100 * stats_of(x, n).range_over_median; }

/* ---- way 1: two generates subtracted (the simplest) --------------------------------------
 * A generate of 1 new token is a prefill and a copy back: TTFT. One of NEW tokens adds
 * NEW - 1 decode steps. */
static double generate_wall_ms(GpuModel *m, const int *ids, int n_prompt, int n_new, Mode mode) {
    static int out[NEW];
    double t0 = now_ms();
    gpu_generate(m, ids, n_prompt, 1, n_new, mode, out, NULL, NULL);
    return now_ms() - t0;
}

/* ---- way 2: a streamer's timestamps --------------------------------------------------------
 * gpu_generate calls back with each token as it reaches the host, like TextIteratorStreamer. */
typedef struct { double t[NEW]; int n; } Stamps;
static void on_token(int step, const int *tokens, double t_ms, void *ctx) {
    Stamps *s = (Stamps *)ctx;
    if (step < NEW) s->t[step] = t_ms;
    s->n = step + 1;
}

/* ---- way 3: prefill and decode by hand, CUDA events around each ------------------------
 * No synchronize between steps: the host runs ahead and the events time the GPU's side,
 * the form the profiler sees. TTFT here ends when the first token exists on the GPU. */
static void events_once(GpuModel *m, const int *ids, Mode mode, double *ttft, double *tpot) {
    cudaStream_t s = gpu_model_stream(m);
    cudaEvent_t e[NEW + 1];
    for (int i = 0; i <= NEW; i++) CUDA_CHECK(cudaEventCreate(&e[i]));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(e[0], s));
    gpu_prefill(m, mode, ids, PROMPT, 1, NULL);
    CUDA_CHECK(cudaEventRecord(e[1], s));
    for (int i = 1; i < NEW; i++) {
        gpu_decode_step(m, mode);
        CUDA_CHECK(cudaEventRecord(e[i + 1], s));
    }
    CUDA_CHECK(cudaEventSynchronize(e[NEW]));
    float ms;
    double step[NEW];
    CUDA_CHECK(cudaEventElapsedTime(&ms, e[0], e[1]));
    *ttft = ms;
    for (int i = 1; i < NEW; i++) {
        CUDA_CHECK(cudaEventElapsedTime(&ms, e[i], e[i + 1]));
        step[i - 1] = ms;
    }
    *tpot = median_of(step, NEW - 1);
    for (int i = 0; i <= NEW; i++) CUDA_CHECK(cudaEventDestroy(e[i]));
}

/* The one protocol behind every headline TTFT and TPOT: REPS generates of a mode with a
 * host cost per launch of dispatch_us (gpu_generate: TTFT = request -> first token on the
 * host; each decode step timed with a synchronize, wall clock); TTFT the median over the
 * generates, TPOT the median of their median steps. */
typedef struct { double ttft, tpot; } Pair;
static Pair mode_pair(GpuModel *m, const int *ids, Mode mode, double dispatch_us) {
    static int out[NEW];
    static GenTiming g;
    double ttft[REPS], med[REPS];
    g_launch.dispatch_us = dispatch_us;
    gpu_generate(m, ids, PROMPT, 1, NEW, mode, out, NULL, NULL);   /* warm-up (graph capture) */
    for (int r = 0; r < REPS; r++) {
        g = gpu_generate(m, ids, PROMPT, 1, NEW, mode, out, NULL, NULL);
        ttft[r] = g.ttft_ms;
        med[r] = median_of(g.step_ms, g.n_steps);
    }
    g_launch.dispatch_us = 0;
    return (Pair){median_of(ttft, REPS), median_of(med, REPS)};
}

/* Section 4's rows for one mode, by mode_pair: its TPOT with the dispatcher's dispatch_us before
 * each launch (tpot_ms_<mode>_d<us>; `with`: that pair when it was already measured) and with
 * bare C launches (tpot_ms_<mode>, ratio_<mode>, mbu_<mode>), and its kernels per step
 * (kernels_<mode>, as launched: for graph modes, the kernels inside the graph). Returns the bare
 * pair. */
static Pair mode_rows(GpuModel *m, const int *ids, Mode md, double dispatch_us, double floor_tpot, const Pair *with) {
    const StepCounts sc = gpu_step_counts(m, md);
    char key[40], note[128];
    Pair p = {0, 0};
    for (int bare = 0; bare < 2; bare++) {
        const double d = bare ? 0 : dispatch_us;
        p = with && !bare ? *with : mode_pair(m, ids, md, d);
        snprintf(note, sizeof note, "%d kernel%s, %d host launch%s per step, dispatch median %.0f us", sc.kernels,
                 sc.kernels == 1 ? "" : "s", sc.host_launches, sc.host_launches == 1 ? "" : "es", d);
        if (bare) snprintf(key, sizeof key, "tpot_ms_%s", mode_name(md));
        else snprintf(key, sizeof key, "tpot_ms_%s_d%.0f", mode_name(md), d);
        report_floored("day09", key, floor_tpot, p.tpot, "ms", note);
    }
    snprintf(key, sizeof key, "ratio_%s", mode_name(md));
    report("day09", key, 1, p.tpot / floor_tpot, "x", note);
    snprintf(key, sizeof key, "mbu_%s", mode_name(md));
    report("day09", key, 100, 100 * floor_tpot / p.tpot, "%", note);
    snprintf(key, sizeof key, "kernels_%s", mode_name(md));
    report("day09", key, NAN, sc.kernels, "count", "kernels per decode step, as launched (graph modes: inside the graph)");
    return p;
}

/* The lesson's table for the ratio TPOT / floor. */
static const struct { double lo, hi; const char *meaning, *next; } TABLE[] = {
    {0, 1.0, "faster than the floor: impossible", "a timing error or a wrong bandwidth figure"},
    {1.0, 1.5, "almost at the bandwidth limit; for an eager loop suspect a missing sync first", "re-check Day 8"},
    {1.5, 3, "memory-bound holds: the GPU spends most of the step moving weights", "the week-1 table can be trusted"},
    {3, 6, "a block of time is not spent moving weights: host overhead of the same order as GPU time",
     "find the gaps (Day 11)"},
    {6, INFINITY, "overhead dominates: the GPU mostly waits for the host", "fewer launches (fusion, graphs) or bigger batches"},
};

typedef struct { GpuModel *m; const int *ids; int n; } PrefillCtx;
static void prefill_fn(void *p) {
    PrefillCtx *c = (PrefillCtx *)p;
    gpu_prefill(c->m, MODE_FUSED, c->ids, c->n, 1, NULL);
}

/* Section 2: TTFT and TPOT of one mode measured three ways (generate(1) and generate(NEW)
 * subtracted, the streamer's per-token timestamps, CUDA events around the prefill and each
 * step), with the dispatcher's median D; rows ttft_ms_<way><suffix>, tpot_ms_<way><suffix>. */
static double three_ways(GpuModel *m, const int *ids, Mode mode, double D, const char *suffix, double floor_ttft,
                       double floor_tpot) {
    g_launch.dispatch_us = D;
    for (int i = 0; i < 2; i++) generate_wall_ms(m, ids, PROMPT, NEW, mode);   /* warm-up */
    double t1[REPS], tn[REPS], sub_tpot[REPS];
    for (int r = 0; r < REPS; r++) {
        t1[r] = generate_wall_ms(m, ids, PROMPT, 1, mode);
        tn[r] = generate_wall_ms(m, ids, PROMPT, NEW, mode);
    }
    double ttft_sub = median_of(t1, REPS), tpot_sub = (median_of(tn, REPS) - ttft_sub) / (NEW - 1);
    for (int r = 0; r < REPS; r++) sub_tpot[r] = (tn[r] - t1[r]) / (NEW - 1);

    static int out[NEW];
    double st_ttft[REPS], st_tpot[REPS];
    for (int r = 0; r < REPS; r++) {
        Stamps s = {};
        gpu_generate(m, ids, PROMPT, 1, NEW, mode, out, on_token, &s);
        double d[NEW];
        for (int i = 1; i < s.n; i++) d[i - 1] = s.t[i] - s.t[i - 1];
        st_ttft[r] = s.t[0];
        st_tpot[r] = median_of(d, s.n - 1);
    }
    double ev_ttft[REPS], ev_tpot[REPS];
    for (int r = 0; r < REPS; r++) events_once(m, ids, mode, &ev_ttft[r], &ev_tpot[r]);
    g_launch.dispatch_us = 0;

    struct { const char *name; double *ttft, *tpot; } way[3] = {
        {"sub", t1, sub_tpot}, {"stream", st_ttft, st_tpot}, {"events", ev_ttft, ev_tpot}};
    const char *how[3] = {"generate(1) and generate(65) subtracted", "streamer timestamps per token",
                          "events around prefill and each step"};
    double tpot_w[3];
    for (int w = 0; w < 3; w++) {
        char key[40], note[128];
        const double ttft_w = w == 0 ? ttft_sub : median_of(way[w].ttft, REPS);
        tpot_w[w] = w == 0 ? tpot_sub : median_of(way[w].tpot, REPS);
        snprintf(note, sizeof note, "%s, %s; spread %.1f%%", mode_name(mode), how[w], spread_pct(way[w].ttft, REPS));
        snprintf(key, sizeof key, "ttft_ms_%s%s", way[w].name, suffix);
        report_floored("day09", key, floor_ttft, ttft_w, "ms", note);
        snprintf(note, sizeof note, "%s, %s; spread %.1f%%", mode_name(mode), how[w], spread_pct(way[w].tpot, REPS));
        snprintf(key, sizeof key, "tpot_ms_%s%s", way[w].name, suffix);
        report_floored("day09", key, floor_tpot, tpot_w[w], "ms", note);
    }
    double lo = fmin(tpot_w[0], fmin(tpot_w[1], tpot_w[2])), hi = fmax(tpot_w[0], fmax(tpot_w[1], tpot_w[2]));
    double spread = 100 * (hi - lo) / lo;
    printf("tpot_methods_spread_pct%s=%.1f (%s)\n", suffix, spread, mode_name(mode));
    return spread;
}

/* Section 7b's chart: both curves on log axes against the matrix's weights (so a vertical
 * distance is int8's speed-up at that size), their fits, and the two models' matrices marked. */
static void gemv_curve_chart(const char *path, const GemvPoint *pt, int np, const double *fit_c, const double *fit_e,
                             double copy_gbs) {
    static double x[4][GEMV_CURVE_SHAPES], y[4][GEMV_CURVE_SHAPES], fx[2][64], fy[2][64];
    int n[4] = {};                      /* fp16, int8, TinyLlama's marks, Llama-2-7B's marks */
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < np; i++) {
        const double w = (double)pt[i].shape->N * pt[i].shape->K / 1e6;
        const int s = pt[i].int8;
        x[s][n[s]] = w, y[s][n[s]++] = pt[i].us.median;
        const int mark = !strcmp(pt[i].shape->model, "TinyLlama") ? 2 : !strcmp(pt[i].shape->model, "Llama-2-7B") ? 3 : -1;
        if (mark > 0) x[mark][n[mark]] = w, y[mark][n[mark]++] = pt[i].us.median;
        lo = fmin(lo, w), hi = fmax(hi, w);
    }
    for (int s = 0; s < 2; s++)         /* the fit, at 64 sizes evenly spaced in log */
        for (int k = 0; k < 64; k++) {
            fx[s][k] = lo * pow(hi / lo, k / 63.0);
            fy[s][k] = fit_c[s] + fx[s][k] * 1e6 * (s ? 1 : 2) / (copy_gbs * 1e3 * fit_e[s]);
        }
    char f16[64], f8[64];
    snprintf(f16, sizeof f16, "fp16 fit: c %.1f us, e %.2f", fit_c[0], fit_e[0]);
    snprintf(f8, sizeof f8, "int8 fit: c %.1f us, e %.2f", fit_c[1], fit_e[1]);
    const ChartSeries series[] = {
        {"fp16 (2 bytes a weight)", x[0], y[0], n[0], 0x0072B2, 0}, {"int8 (1 byte + a scale a row)", x[1], y[1], n[1], 0xD55E00, 0},
        {f16, fx[0], fy[0], 64, 0x9ECAE1, 0}, {f8, fx[1], fy[1], 64, 0xF4B183, 0},
        {"TinyLlama's matrices", x[2], y[2], n[2], 0x009E73, 1}, {"Llama-2-7B's matrices", x[3], y[3], n[3], 0x000000, 1}};
    Chart c = {};
    c.title = "A GEMV's time against its size: batch 1, cold weights, back to back";
    c.xlabel = "matrix size (million weights)";
    c.ylabel = "us per GEMV";
    c.logx = c.logy = 1;
    if (chart_lines(&c, path, series, 6) == 0) printf("chart=%s\n", path);
}

int main(int argc, char **argv) {
    const char *model_dir = NULL, *dispatch_from = NULL;
    int &verbose = g_verbose;
    double D = NAN;   /* not given: the default, or the trace's median */
    const ArgFlag flags[] = {ARG_MODEL(&model_dir), ARG_DISPATCH_US(&D), ARG_DISPATCH_FROM(&dispatch_from),
                             ARG_VERBOSE(&verbose), {0}};
    args_parse("day09", USAGE, argc, argv, flags, NULL);
    rows_quiet(!verbose);
    rows_headlines(HEADLINES);
    D = dispatch_setup("day09", D, dispatch_from, DISPATCH_US_DEFAULT);
    /* section 4 and the int8 rows always measure bare C launches too (tpot_ms_<mode>): 0 would
     * measure them twice, as tpot_ms_<mode>_d0 beside them, and dispatch_cost_ms would be 0 */
    if (D == 0)
        die("day09: --dispatch-us 0 would repeat the bare-C rows (tpot_ms_<mode>) day09 always measures; "
            "give the emulated dispatcher's cost, above 0");
    printf("# Day 09: how far from the floor?\n");
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_measure_copy(&g, (size_t)1 << 30);
    gpu_facts_print(&g, verbose);
    GpuModelOpts o = {.model_dir = model_dir, .seed = 1, .max_batch = 1, .quiet = !verbose};
    GpuModel *m = gpu_model_open(&o);
    const Config *c = gpu_model_config(m);
    if (verbose) config_print(c);
    static int ids[MAX_PROMPT];
    prompt_ids(model_dir, c, MAX_PROMPT, ids);

    /* ---- 1. The floors for this GPU --------------------------------------------------- */
    progress(1, 9, "day09 1. floors");
    printf("## 1. floors (batch 1, fp16, %d-token prompt)\n", PROMPT);
    double W = weight_bytes(c);
    double floor_tpot = floor_tpot_ms(W, g.bw_gbs);
    double ttft_compute, ttft_bytes;
    double floor_ttft = ttft_floor_ms(c, PROMPT, g.fp16_tflops, g.bw_gbs, &ttft_compute, &ttft_bytes);
    printf("weight_gb=%.3f bw_gbs=%.0f floor_tpot_ms=%.3f floor_tok_s=%.0f\n", W / 1e9, g.bw_gbs, floor_tpot, 1e3 / floor_tpot);
    if (verbose) {
    printf("floor_tpot_copy_ms=%.3f (against the measured copy bandwidth, %.0f GB/s)\n", floor_tpot_ms(W, g.copy_gbs), g.copy_gbs);
    printf("decode_compute_ms=%.4f (%.2f GFLOP per token / peak: negligible)\n",
           g.fp16_tflops > 0 ? decode_flops(c) / (g.fp16_tflops * 1e12) * 1e3 : NAN, decode_flops(c) / 1e9);
    if (g.fp16_tflops > 0)
        printf("floor_ttft_ms=%.3f = max(compute %.3f ms, bytes %.3f ms)\n", floor_ttft, ttft_compute, ttft_bytes);
    else
        printf("floor_ttft_ms=%.3f (bytes term only: this GPU's peak is not in the table)\n", floor_ttft);
    double kv = kv_bytes_per_token(c) * (PROMPT + NEW);
    printf("kv_cache_mb=%.1f at %d tokens = %.2f%% of the weights: negligible at batch 1\n", kv / 1e6, PROMPT + NEW,
           100 * kv / W);
    }

    /* ---- 2. TTFT and TPOT, three ways, in the lesson's regime: Hugging Face eager is this
     * eager step with Python's cost per op in front of each launch (the lesson: 300-400
     * kernels, 30-50 us of CPU each). With g_launch.dispatch_us = D the launch path
     * busy-waits before every launch, prefill included, a time drawn from a real PyTorch
     * trace's host gaps with a median of D (gpu/dispatch.h); the kit's bare C launch
     * (dispatch 0) comes in section 4 as a finding of its own. Then the same three ways on
     * the graph step, where a lost synchronize cannot hide behind the host's launches. */
    progress(2, 9, "day09 2. TTFT and TPOT three ways");
    printf("## 2. TTFT and TPOT three ways (the lesson's regime: eager + a dispatcher wait before each launch, "
           "median %.0f us, batch 1, %d-token prompt, %d new tokens)\n", D, PROMPT, NEW);
    report_dispatch("day09", D);
    const double spread_eager = three_ways(m, ids, MODE_EAGER, D, "", floor_ttft, floor_tpot);
    detail("the same three on the graph step (bare C, one launch a step: the GPU sets its pace, so a lost "
           "synchronize would show as a step many times too short)\n");
    const double spread_graph = three_ways(m, ids, MODE_GRAPH, 0, "_graph", floor_ttft, floor_tpot);
    printf("reading: %s\n", fmax(spread_eager, spread_graph) <= 20
               ? "both within the lesson's 10-20%: the three ways timed the same steps"
               : "more than 20% apart: one of the ways lost a sync or a warm-up (Day 8)");
    detail("         the subtraction and the streamer include each token's copy back to the host; the events\n"
           "         run without a sync between steps, so they show the GPU's pace with the host running ahead\n");

    /* ---- 3. The headline, in the lesson's regime: TTFT and TPOT from the same generates of
     * the eager step with the emulated dispatcher, by the one protocol every mode uses below
     * (mode_pair). TTFT / TPOT pairs them: how many decode steps the prefill costs in this one
     * configuration. (The eager prefill runs the decode step's 903 ops on the whole prompt, as
     * Hugging Face's does, each launch with the dispatcher's cost.) */
    progress(3, 9, "day09 3. the ratio");
    printf("## 3. the ratio (the lesson's regime: eager + a dispatcher wait before each launch, median %.0f us)\n", D);
    const Pair hf = mode_pair(m, ids, MODE_EAGER, D);
    const StepCounts se = gpu_step_counts(m, MODE_EAGER);
    double ttft = hf.ttft, tpot = hf.tpot, ratio = tpot / floor_tpot;
    char hnote[160];
    snprintf(hnote, sizeof hnote, "emulated HF eager: eager + a dispatcher wait per launch, median %.0f us, batch 1, 200-token "
             "prompt", D);
    report_floored("day09", "ttft_ms", floor_ttft, ttft, "ms", hnote);
    report_floored("day09", "tpot_ms", floor_tpot, tpot, "ms", hnote);
    report("day09", "ratio", 1, ratio, "x", "TPOT / floor TPOT (emulated HF eager)");
    report("day09", "tok_s", 1e3 / floor_tpot, 1e3 / tpot, "tok/s", "1 / TPOT (emulated HF eager)");
    report("day09", "mbu", 100, 100 * W / (tpot * 1e-3) / (g.bw_gbs * 1e9), "%", "weight bytes / TPOT / bandwidth");
    report("day09", "ttft_over_tpot", floor_ttft / floor_tpot, ttft / tpot, "x",
           "TTFT / TPOT of the same generates (emulated HF eager); the lesson expects 2-5 on a T4");
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        int here = ratio >= TABLE[i].lo && ratio < TABLE[i].hi;
        if (here || g_verbose) printf("%s %4.1f-%-4.1f %s -> %s\n", here ? "==>" : "   ", TABLE[i].lo, TABLE[i].hi, TABLE[i].meaning, TABLE[i].next);
    }
    detail("reading: the ratio says how far from the floor, not why (mistake #7): Day 10 and 11 split the\n"
           "         step into kernel time and gaps. The modes below change only the launches.\n");

    /* ---- 4. The same TPOT in every mode, by the same protocol: the bytes are the same, the
     * launches are not. Once with the emulated dispatcher (the profiling loop of day12, one
     * change per step: eager -> graph_eager, the same kernels in one launch -> graph, the
     * kit's fused kernels), once with the kit's bare C launch (dispatch 0). The difference
     * for eager is what Python costs: the dispatcher's launches x its mean draw, less what
     * hides under the GPU's own time. */
    progress(4, 9, "day09 4. TPOT by mode");
    printf("## 4. TPOT by mode (batch 1), with the dispatcher and with bare C launches\n");
    double tpot16[MODE_COUNT];          /* bare C, for section 7 */
    for (int k = 0; k < MODE_PERSISTENT; k++) {     /* the lesson's four; persistent is section 8's */
        const Mode md = (Mode)k;
        const Pair p = mode_rows(m, ids, md, D, floor_tpot, md == MODE_EAGER ? &hf : NULL);
        tpot16[md] = p.tpot;
        if (md == MODE_FUSED) report_floored("day09", "ttft_ms_bare", floor_ttft, p.ttft, "ms",
                                             "the prefill with bare C launches (fused mode's generates)");
        if (md == MODE_EAGER) {
            char dn[160];
            const double mean_us = D * dispatch_mean(dispatch_shape());   /* the mean draw, not the median */
            snprintf(dn, sizeof dn, "TPOT with the dispatcher - bare C eager; theory: %d launches x %.1f us (the mean "
                     "draw at a median of %.0f)", se.host_launches, mean_us, D);
            report("day09", "dispatch_cost_ms", se.host_launches * mean_us / 1e3, hf.tpot - p.tpot, "ms", dn);
        }
    }

    /* ---- 5. Mistake #6: total / N = TPOT + (TTFT - TPOT) / N. The TTFT is spread over the
     * N tokens, the more so the fewer there are, the longer the prefill and the faster the
     * decode. Here with the 200-token prompt decoded eagerly, then with a 1024-token one
     * decoded by the graph step; each prompt's TTFT and TPOT come from its own two generates
     * (N = 8 and 64) subtracted, so run-to-run noise between sections does not show as error. */
    progress(5, 9, "day09 5. total / N");
    printf("## 5. total / N is not TPOT (mistake #6)\n");
    const struct { int prompt; Mode mode; const char *suffix; } runs[2] = {{PROMPT, MODE_EAGER, ""},
                                                                         {LONG_PROMPT, MODE_GRAPH, "_long"}};
    for (int j = 0; j < 2; j++) {
        if (runs[j].prompt + 64 > c->max_seq) continue;
        const int ns[2] = {8, 64};
        double tot[REPS], total[2];
        for (int k = 0; k < 2; k++) {
            for (int r = 0; r < REPS; r++) tot[r] = generate_wall_ms(m, ids, runs[j].prompt, ns[k], runs[j].mode);
            total[k] = median_of(tot, REPS);
        }
        const double tpot_p = (total[1] - total[0]) / (ns[1] - ns[0]), ttft_p = total[0] - (ns[0] - 1) * tpot_p;
        detail("prompt=%d mode=%s ttft_ms=%.2f tpot_ms=%.3f (from the two totals)\n", runs[j].prompt,
               mode_name(runs[j].mode), ttft_p, tpot_p);
        for (int k = 0; k < 2; k++) {
            char key[40], note[96];
            snprintf(key, sizeof key, "total_over_n_ms_%d%s", ns[k], runs[j].suffix);
            snprintf(note, sizeof note, "%d-token prompt, %s: %+.0f%% vs its TPOT", runs[j].prompt,
                     mode_name(runs[j].mode), 100 * (total[k] / ns[k] / tpot_p - 1));
            report("day09", key, tpot_p, total[k] / ns[k], "ms", note);
        }
        detail("reading: the error is (TTFT - TPOT) / N = %.3f ms at N = 8, %+.0f%% (TTFT = %.1f x TPOT)\n",
               (ttft_p - tpot_p) / 8, 100 * (ttft_p - tpot_p) / 8 / tpot_p, ttft_p / tpot_p);
    }

    /* ---- 6. Prefill across the ridge (self-test 2). Intensity = 2 x params x tokens FLOP
     * over 2 x params bytes = tokens, whatever the model. Below the ridge the weights' bytes
     * bound the prefill, above it the FLOPs. GPU time by events; attention FLOPs left out.
     * (The kit prefills at most 512 tokens a pass, common/gpu/gpu_model.cu, so a longer prompt
     * reads the weights once per pass: still far above the ridge.) */
    progress(6, 9, "day09 6. prefill sweep");
    printf("## 6. prefill sweep: arithmetic intensity vs this GPU's ridge (%.0f FLOP/byte)\n", g.ridge);
    char note[128];
    snprintf(note, sizeof note, "FLOP per weight byte of a %d-token prefill; %s", PROMPT,
             g.ridge <= 0 ? "ridge unknown" : PROMPT < g.ridge ? "below the ridge: memory-bound" : "above the ridge: compute-bound");
    report("day09", "prefill_intensity_200", g.ridge > 0 ? g.ridge : NAN, prefill_intensity(PROMPT), "FLOP/B", note);
    double best = 0;
    int best_n = 0, last_n = 0;
    double last = 0;
    for (size_t i = 0; i < sizeof SWEEP / sizeof SWEEP[0]; i++) {
        int n = SWEEP[i];
        if (n >= c->max_seq) { detail("prefill_len=%d skipped (max_seq %d)\n", n, c->max_seq); continue; }
        PrefillCtx pc = {m, ids, n};
        BenchResult r = bench(prefill_fn, &pc, (BenchOpts){.warmup = 1, .iters = 3, .use_events = 1,
                                                          .stream = gpu_model_stream(m)});
        double cm, bm, fl = ttft_floor_ms(c, n, g.fp16_tflops, g.bw_gbs, &cm, &bm);
        double achieved = decode_flops(c) * n / (r.s.median * 1e-3) / 1e12;
        double roof = g.fp16_tflops > 0 ? fmin(g.fp16_tflops, prefill_intensity(n) * g.bw_gbs / 1e3) : NAN;
        detail("prefill_len=%d intensity=%.0f side=%s prefill_ms=%.3f floor_ms=%.3f (compute %.3f, bytes %.3f) "
               "ratio=%.1f\n", n, prefill_intensity(n),
               g.ridge <= 0 ? "unknown" : n < g.ridge ? "memory-bound" : "compute-bound", r.s.median, fl, cm, bm,
               r.s.median / fl);
        char key[32];
        snprintf(key, sizeof key, "prefill_tflops_%d", n);
        snprintf(note, sizeof note, "linear-layer FLOPs / prefill GPU time; theory = roofline min(peak, intensity x bw)");
        report("day09", key, roof, achieved, "TFLOP/s", note);
        if (achieved > best) best = achieved, best_n = n;
        last = achieved, last_n = n;
    }
    printf("prefill_best_tflops=%.1f at %d tokens\n", best, best_n);
    detail("reading: below the ridge the prefill rides the bandwidth slope and TFLOP/s grows with the prompt;\n"
           "         'prefill is compute-bound' needs a prompt longer than the ridge on this GPU.\n");
    if (last < 0.8 * best)
        detail("reading: at %d tokens it falls to %.1f TFLOP/s: the attention over the prompt grows with its\n"
               "         square and is not in the 2 x params x tokens count; the linear layers are not the cost there\n",
               last_n, last);
    /* ---- 7. The loop's last rung: read fewer bytes. Once the graph has taken the launches
     * away (section 4), what is left is mostly reading the weights, so the next hypothesis is
     * fewer bytes per weight: int8, a scale per output row (common/gpu/gpu_model.h). The lesson
     * (gpt-fast) has both outcomes: compiled, int8 went past the 16-bit floor; without
     * compilation it was slower than 16-bit, because each layer's weights were turned back
     * into 16-bit before the matmul. The kit runs both: int8_unfused writes each layer back to
     * fp16 (1 byte read, 2 written, 2 read again: 2.5x fp16's bytes), int8 has the GEMV read
     * the int8 weights itself (half the bytes). Each is measured against its own floor (the int8
     * bytes / bandwidth) and against the 16-bit one, by the same protocol as section 4; the
     * prefill dequantizes each layer for cuBLAS either way. The bytes a step moves are counted
     * by the launch path (each linear kernel's N x K x bytes per weight). */
    progress(7, 9, "day09 7. int8");
    printf("## 7. int8 weights: half the bytes, if the dequantization is fused (the loop's step 3)\n");
    const Config cc = *c;
    const StepCounts s16 = gpu_step_counts(m, MODE_GRAPH);
    const double tpot16_graph = tpot16[MODE_GRAPH];
    gpu_model_free(m);
    const double W8 = int8_weight_bytes(&cc), floor8 = floor_tpot_ms(W8, g.bw_gbs), floor8_ttft = fmax(ttft_compute, floor8);
    const double lin = linear_params(&cc), rows = linear_rows(&cc);
    detail("int8_weight_gb=%.3f floor_tpot_int8_ms=%.3f floor_tok_s=%.0f (16-bit: %.3f GB, %.3f ms): the linear layers at "
           "1 byte + a 4-byte scale per row, the embedding and norms still 2\n", W8 / 1e9, floor8, 1e3 / floor8, W / 1e9,
           floor_tpot);
    detail("T4 (theory): floor %.2f ms -> %.2f ms (half of it would be %.2f: the embedding table stays fp16)\n",
           floor_tpot_ms(W, 320), floor_tpot_ms(W8, 320), floor_tpot_ms(W, 320) / 2);
    report("day09", "step_gb", 2 * lin / 1e9, s16.weight_bytes / 1e9, "GB",
           "fp16 graph step: weight bytes its kernels read, counted as launched; theory 2 x linear params");
    double tpot8[QUANT_COUNT][MODE_COUNT] = {}, gb8[QUANT_COUNT] = {};
    for (int qi = QUANT_INT8; qi <= QUANT_INT8_UNFUSED; qi++) {
        const Quant q = (Quant)qi;
        const char *qn = quant_name(q);
        GpuModelOpts oq = o;
        oq.quant = q;
        m = gpu_model_open(&oq);
        char key[48], note[192];
        for (int k = MODE_FUSED; k <= MODE_GRAPH; k++) {
            const Mode md = (Mode)k;
            const StepCounts sc = gpu_step_counts(m, md);
            for (int bare = 1; bare >= 0; bare--) {
                if (!bare && md != MODE_GRAPH) continue;   /* the loop's rung: graph with the dispatcher */
                const Pair p = mode_pair(m, ids, md, bare ? 0 : D);
                snprintf(note, sizeof note, "%s weights, %d kernels, %d host launch%s per step, dispatch median %.0f us; floor: the "
                         "int8 bytes", qn, sc.kernels, sc.host_launches, sc.host_launches == 1 ? "" : "es", bare ? 0 : D);
                if (bare) snprintf(key, sizeof key, "tpot_ms_%s_%s", qn, mode_name(md));
                else snprintf(key, sizeof key, "tpot_ms_%s_%s_d%.0f", qn, mode_name(md), D);
                report_floored("day09", key, floor8, p.tpot, "ms", note);
                if (!bare) continue;
                tpot8[q][md] = p.tpot;
                snprintf(key, sizeof key, "ratio16_%s_%s", qn, mode_name(md));
                report("day09", key, 1, p.tpot / floor_tpot, "x", "TPOT / the 16-bit floor: below 1 = faster than fp16 can be");
                if (md == MODE_FUSED) {
                    snprintf(key, sizeof key, "ttft_ms_%s", qn);
                    report_floored("day09", key, floor8_ttft, p.ttft, "ms", "the prefill, each layer dequantized for cuBLAS "
                                   "(fused mode's generates, bare C)");
                }
            }
            if (md == MODE_GRAPH) {
                gb8[q] = sc.weight_bytes / 1e9;
                snprintf(key, sizeof key, "step_gb_%s", qn);
                snprintf(note, sizeof note, "%s graph step: weight bytes read%s, counted as launched", qn,
                         q == QUANT_INT8_UNFUSED ? " (int8), written and read again (fp16)" : " and scales");
                report("day09", key, (q == QUANT_INT8 ? lin : 5 * lin) / 1e9 + 4 * rows / 1e9, gb8[q], "GB", note);
            }
        }
        gpu_model_free(m);
    }
    printf("reading: unfused int8 %.3f ms against fp16's %.3f in graph mode (%+.0f%%): its step moves %.2f GB of weights "
           "against fp16's %.2f, more, not less\n", tpot8[QUANT_INT8_UNFUSED][MODE_GRAPH], tpot16_graph,
           100 * (tpot8[QUANT_INT8_UNFUSED][MODE_GRAPH] / tpot16_graph - 1), gb8[QUANT_INT8_UNFUSED], s16.weight_bytes / 1e9);
    printf("reading: fused int8 %.3f ms (%+.0f%%), %.2f GB a step (%.2fx fp16's): %.2fx its own floor, %.2fx the 16-bit floor: "
           "%s\n", tpot8[QUANT_INT8][MODE_GRAPH], 100 * (tpot8[QUANT_INT8][MODE_GRAPH] / tpot16_graph - 1), gb8[QUANT_INT8],
           gb8[QUANT_INT8] / (s16.weight_bytes / 1e9), tpot8[QUANT_INT8][MODE_GRAPH] / floor8,
           tpot8[QUANT_INT8][MODE_GRAPH] / floor_tpot,
           tpot8[QUANT_INT8][MODE_GRAPH] < floor_tpot ? "below the 16-bit floor, as the lesson's compiled int8 was"
                                                      : "above the 16-bit floor: the per-kernel cost that is not bytes did not halve");

    /* ---- 7b. Why fused int8 gains a tenth, not a half: each GEMV alone, from 1 MB to 268 MB,
     * fp16 and int8 (gpu/gemv_curve.h: cold weights, launched back to back as in a step, lm_head's
     * epilogue), fitted to time = c + bytes / (bandwidth x e) by the timeline model's own rule
     * (replay_fit_line, against the copy's bandwidth, as day11 fits its kernels). c is what a
     * kernel pays whatever its size; int8 halves the bytes and not c. A layer's GEMVs are
     * TinyLlama's four matrices (qkv, o, gate/up, down) summed; Llama-2-7B's are the lesson's
     * (gpt-fast measured its 1.47x there). Shapes whose fp16 weights would take over 0.3 ms at
     * the copy's bandwidth are left out (a T4 stops near 64 MB). */
    progress(8, 9, "day09 7b. the GEMV curve");
    printf("## 7b. why: a GEMV's time against its size, fp16 and int8 (cold weights, batch 1)\n");
    static GemvPoint pt[2 * GEMV_CURVE_SHAPES];
    const int np = gemv_curve(g.copy_gbs, 0.3, pt);
    double fit_c[2] = {NAN, NAN}, fit_e[2] = {NAN, NAN}, layer_us[2][2] = {}; /* [tl, 7b][int8] */
    int layer_n[2][2] = {};
    for (int q8 = 0; q8 <= 1; q8++) {
        double b[GEMV_CURVE_SHAPES], t[GEMV_CURVE_SHAPES];
        int n = 0;
        for (int i = 0; i < np; i++) {
            if (pt[i].int8 != q8) continue;
            const GemvShape *sh = pt[i].shape;
            char key[48], note[160];
            snprintf(key, sizeof key, "gemv_us_%s_%s", q8 ? "int8" : "fp16", sh->key);
            snprintf(note, sizeof note, "%s%s%s %d x %d, %.1f MB read, alone, cold, back to back; range %.2f-%.2f us; "
                     "theory: the bytes at the datasheet bandwidth", sh->model, *sh->model ? " " : "", sh->what, sh->N,
                     sh->K, pt[i].bytes / 1e6, pt[i].us.min, pt[i].us.max);
            report_floored("day09", key, pt[i].bytes / (g.bw_gbs * 1e3), pt[i].us.median, "us", note);
            b[n] = pt[i].bytes, t[n++] = pt[i].us.median;
            const int which = !strcmp(sh->model, "TinyLlama") ? 0 : !strcmp(sh->model, "Llama-2-7B") ? 1 : -1;
            if (which >= 0 && strcmp(sh->what, "lm_head")) layer_us[which][q8] += pt[i].us.median, layer_n[which][q8]++;
        }
        const char *qn = q8 ? "int8" : "fp16";
        char key[48], note[200];
        if (!replay_fit_line(b, t, n, g.copy_gbs, &fit_e[q8], &fit_c[q8])) {
            printf("gemv_fit_%s: the %d sizes show no bandwidth term (c hides it): no fit\n", qn, n);
            continue;
        }
        snprintf(note, sizeof note, "%s GEMV: time = c + bytes / (%.0f GB/s x e), least squares over %d sizes "
                 "(the timeline model's fit); what a kernel pays whatever its size", qn, g.copy_gbs, n);
        snprintf(key, sizeof key, "gemv_fit_c_us_%s", qn);
        report("day09", key, NAN, fit_c[q8], "us", note);
        snprintf(key, sizeof key, "gemv_fit_e_%s", qn);
        report("day09", key, 1, fit_e[q8], "x", note);
    }
    /* the default output: the fits on one line, the speed-ups on another (the rows hold the notes) */
    printf("gemv_fit_c_us_fp16=%.2f gemv_fit_e_fp16=%.2f gemv_fit_c_us_int8=%.2f gemv_fit_e_int8=%.2f\n", fit_c[0],
           fit_e[0], fit_c[1], fit_e[1]);
    static const char *const LAYER_KEY[2] = {"gemv_int8_speedup_tl_layer", "gemv_int8_speedup_7b_layer"};
    static const char *const LAYER_WHO[2] = {"TinyLlama", "Llama-2-7B"};
    char line[256] = "";
    for (int w = 0; w < 2; w++) {
        if (layer_n[w][0] != 4 || layer_n[w][1] != 4) continue;   /* a shape left out: no layer */
        char note[200];
        snprintf(note, sizeof note, "%s's layer, its four GEMVs alone (qkv, o, gate/up, down): fp16 %.1f us / int8 "
                 "%.1f us; theory: the bytes' ratio", LAYER_WHO[w], layer_us[w][0], layer_us[w][1]);
        report("day09", LAYER_KEY[w], 2, layer_us[w][0] / layer_us[w][1], "x", note);
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s=%.2f ", LAYER_KEY[w], layer_us[w][0] / layer_us[w][1]);
    }
    if (isfinite(fit_c[0]) && isfinite(fit_c[1])) {
        const double lim = 2 * fit_e[1] / fit_e[0];
        const double P = int8_speedup_from_params(fit_c[0], fit_e[0], fit_c[1], fit_e[1], g.copy_gbs, 1.6);
        char note[200];
        snprintf(note, sizeof note, "the fp16 MB of the smallest matrix the two fits make int8 1.6x faster on (the "
                 "lesson's regime); its limit on huge matrices: 2 e_int8 / e_fp16 = %.2fx%s", lim,
                 isfinite(P) ? "" : ", under 1.6: never");
        report("day09", "gemv_int8_1p6x_mb", NAN, 2 * P / 1e6, "MB", note);
        if (isfinite(P)) snprintf(line + strlen(line), sizeof line - strlen(line), "gemv_int8_1p6x_mb=%.0f", 2 * P / 1e6);
        else snprintf(line + strlen(line), sizeof line - strlen(line), "gemv_int8_1p6x_mb=never (limit %.2fx)", lim);
    }
    /* What the two fits predict for the int8 graph step, from fp16's: minus the time of the bytes
     * int8 no longer reads (each precision's step bytes at its own fit's bandwidth), plus int8's
     * extra c for each GEMV of the step. int8_extra_c_ms is that last term alone: what int8's
     * kernels cost beyond fp16's whatever their size, the part of the step int8 does not halve. */
    const double tpot8g = tpot8[QUANT_INT8][MODE_GRAPH];
    if (isfinite(fit_c[0]) && isfinite(fit_c[1]) && tpot8g > 0) {
        const double saved_ms = (s16.weight_bytes / fit_e[0] - gb8[QUANT_INT8] * 1e9 / fit_e[1]) / (g.copy_gbs * 1e6);
        const double extra_ms = s16.gemms * (fit_c[1] - fit_c[0]) / 1e3, pred = tpot16_graph - saved_ms + extra_ms;
        char note[256];
        snprintf(note, sizeof note, "the int8 graph step (measured) against the GEMV fits' forecast (theory): fp16's %.3f "
                 "ms - %.3f ms of bytes int8 does not read + %d GEMVs x int8's extra c (%.3f ms)", tpot16_graph, saved_ms,
                 s16.gemms, extra_ms);
        report("day09", "int8_step_from_curve_ms", pred, tpot8g, "ms", note);
        snprintf(note, sizeof note, "%d GEMVs a step x (gemv_fit_c_us_int8 - gemv_fit_c_us_fp16): what int8's kernels "
                 "pay beyond fp16's whatever their size", s16.gemms);
        report("day09", "int8_extra_c_ms", NAN, extra_ms, "ms", note);
        snprintf(line + strlen(line), sizeof line - strlen(line), " int8_step_from_curve_ms=%.3f (measured %.3f)", pred, tpot8g);
    }
    printf("%s\n", line);
    if (isfinite(fit_c[0]) && isfinite(fit_c[1])) {
        char path[1024];
        snprintf(path, sizeof path, "%s/gemv_curve.png", results_mkdir());
        gemv_curve_chart(path, pt, np, fit_c, fit_e, g.copy_gbs);
    }

    /* ---- 8. Beyond the week: one kernel per step. Graph mode (section 4) pays one launch a
     * step, but its step is still 113 kernels, and each one's work waits for the whole of the
     * one before it (under PDL its start-up overlaps, its work does not). Persistent mode runs the
     * whole step as one kernel resident on every SM, each block waiting only for the tiles it
     * reads (common/kernels/persistent.cu): no kernel boundary inside a step. It is not one of the
     * lesson's four modes, and it does not run everywhere: gpu_mode_refusal says why not (not
     * sm_90 code, the T4 switch, more rows than it takes), and then this section prints that
     * sentence, writes it to rows.tsv as persistent_not_run (day12 shows it) and no TPOT. Where
     * it runs, section 4's rows by section 4's protocol, so its TPOT stands beside graph's. */
    progress(9, 9, "day09 8. persistent");
    printf("## 8. beyond the week: one kernel per step (persistent mode, batch 1, fp16)\n");
    m = gpu_model_open(&o);
    const char *no = gpu_mode_refusal(m, MODE_PERSISTENT, 1);
    if (no) {
        printf("persistent: not run: %s\n", no);
        rows_write("day09", "persistent_not_run", NAN, NAN, "-", no);
    } else {
        const Pair p = mode_rows(m, ids, MODE_PERSISTENT, D, floor_tpot, NULL);
        printf("reading: one kernel a step against graph's %d: persistent %.3f ms, graph %.3f (%+.0f%%), both with bare C "
               "launches, %.2fx the floor; make bench --profile shows where its step waits (persist_trace)\n",
               s16.kernels, p.tpot, tpot16_graph, 100 * (p.tpot / tpot16_graph - 1), p.tpot / floor_tpot);
    }
    gpu_model_free(m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
