/* Day 11 · Is the GPU waiting for the CPU?
 *
 * Day 10 named the kernels and summed their GPU time. That sum is not the step's time: a
 * kernel can start only after the CPU has launched it, and when launching a kernel takes
 * longer than running it, the GPU lane of the timeline fills with white. Those gaps are
 * overhead-bound, the third kind of bottleneck, made visible. This program measures them:
 *
 *   busy ratio   union of kernel intervals / (first kernel start -> last kernel end)
 *   gaps         the idle stretches between kernels: count per step, median, p90, histogram
 *   host-bound   the share of gap time in which the next kernel's launch call had not even
 *                begun: the GPU was waiting for the CPU, not for its own queue
 *   launch API   how long one cudaLaunchKernel takes on the CPU
 *
 * for three ways of running the same step (eager: a few hundred small kernels; fused: one
 * kernel per natural op; graph: the fused step replayed as one CUDA graph), at batch 1 and
 * 32, and with a dispatcher cost of 0 or 40 us per launch (g_launch.dispatch_us busy-waits
 * before each launch, the way Python and PyTorch's dispatcher spend 30-50 us per op in the
 * lesson; 0 is this kit's bare C launch). Each configuration leaves a Chrome trace for
 * Perfetto (results/trace_<cfg>.json: CPU calls on one track, kernels on another, arrows
 * from launch to kernel) and its gaps (results/gaps_<cfg>.tsv, one per line, in us).
 * A sweep of the dispatch cost (0, 5, 10, 20, 40 us, eager, batch 1) shows where the step
 * turns overhead-bound: once launches x (dispatch + launch call) exceeds the GPU time of a
 * step, TPOT grows by one launch count of microseconds per microsecond of dispatch.
 * Two PNG strips show one decode step, eager and graph: results/timeline_eager.png and
 * results/timeline_graph.png (CPU launch calls above, GPU kernels coloured by model part).
 *
 * Build and run:   make day11      (or: make bin/day11_gaps && bin/day11_gaps [--model DIR])
 *
 * What to expect (key=value lines; rows in results/rows.tsv). Everything runs under the
 * tracer, which makes each launch slower (day10's profiler_overhead_pct). H200: this kit's
 * run; T4: the lesson's expectations and the same arithmetic, not measured here.
 *   busy_eager_b1_d0     H200 25-50%: even this C launch loop (~10 us per op under the tracer)
 *                        trails kernels of ~4 us; T4, whose kernels take 3-5x longer: 70-95%
 *   busy_eager_b1_d40    the lesson's regime: H200 6-10%, T4 ~40%; the faster GPU has the
 *                        wider gaps (mistake #14)
 *   busy_graph_b1_d0     80-95%: one launch per step, kernels back to back; what is left are
 *                        the ~2 us boundaries between 113 kernels of 1-40 us (an empty
 *                        kernel's boundary costs 0.5 us in a graph, test_gemv --bench; the rest
 *                        is each kernel's own first and last microseconds)
 *   batch 32             the same launches at the same cost; busy rises as far as the kernels
 *                        grow (H200, eager: 1.5-1.6 -> 1.65-1.8 ms of kernels per step, busy
 *                        25-47% -> 29-52%: the step is memory-bound; a T4's kernels grow more)
 *   gap_median_us        eager d40 45-50 (dispatch + launch); eager d0 4-9; graph 2-3.5 (the
 *                        kernel boundaries a graph keeps)
 *   launch_api_us        4-7 us per cudaLaunchKernel; one cudaGraphLaunch of 113 kernels
 *                        (158 at batch 32) 85-290 us, varying with the host from run to run
 *   crossover_us         predicted (GPU time per step / launches - launch call): H200 -1 to
 *                        -3.5 us, overhead-bound with no dispatcher at all, measured 0-5 us;
 *                        T4 10-15 us
 * It proves acceptance question 5 (gaps mean the GPU waits for the CPU; the two cures are
 * fewer launches - fusion, CUDA graphs - and more work per launch - batch) and self-tests
 * 4 (batch 32: same CPU cost, longer kernels, higher busy ratio, TPOT barely moves) and 6
 * (a flat TPOT over batch is not proof of memory-bound: the GPU lane decides).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "chart.h"
#include "args.h"
#include "gpu.h"
#include "gpu_model.h"
#include "launch.h"
#include "prompt.h"
#include "rows.h"
#include "stats.h"
#include "theory.h"
#include "trace.h"

#define DAY "day11"
enum { WARMUP = 3, STEPS = 5, PROMPT = 32, MAX_BATCH = 32, NSWEEP = 5, NCFG = 12 };
static const Mode MODES[] = {MODE_EAGER, MODE_FUSED, MODE_GRAPH};
static const int BATCHES[] = {1, 32};
static const double DISPATCH[] = {0, 40};
static const double SWEEP[NSWEEP] = {0, 5, 10, 20, 40};

typedef struct {
    char name[32];           /* <mode>_b<batch>_d<dispatch_us> */
    Mode mode;
    int batch;
    double dispatch_us;
    double tpot_ms;          /* median of the synchronized steps */
    double busy, gaps_per_step, gap_median_us, gap_p90_us, host_bound, launch_api_us;
    double launches_per_step, kernels_per_step, gpu_ms;   /* gpu_ms: GPU busy time per step (kernel
                                                           * intervals merged: fused kernels overlap
                                                           * their neighbours, so a plain sum would
                                                           * count that time twice) */
} Result;

typedef struct { GpuModel *m; Trace *tr; int traced; int ids[PROMPT]; double floor_ms; } Ctx;

static void usage(void) {
    printf("usage: day11_gaps [--model DIR]\n"
           "  Measures the gaps on the GPU timeline of a decode step (busy ratio, gaps, host-bound\n"
           "  share, launch cost, TPOT) for eager/fused/graph x batch 1/32 x dispatch 0/40 us, sweeps\n"
           "  the dispatch cost, writes Chrome traces, gap lists and two timeline PNGs to results/.\n"
           "  --model DIR  config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n");
}

static void result_path(char *out, size_t cap, const char *stem, const char *name, const char *ext) {
    snprintf(out, cap, "%s/%s%s.%s", results_dir(), stem, name, ext);
}

/* One gap per line, in us, for day12's histogram. */
static void write_gaps(const char *path, const TraceWindow *w) {
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s; check that the results folder is writable", path);
    for (int i = 0; i < w->n_gaps; i++) fprintf(f, "%.3f\n", w->gaps_ns[i] / 1e3);
    if (fclose(f) != 0) die("cannot finish writing %s (disk full?)", path);
}

/* The gap histogram as one line: counts in bins of us. */
static void print_histogram(const char *cfg, const TraceWindow *w) {
    static const double edge[] = {1, 2, 5, 10, 20, 50, 100};
    static const char *label[] = {"<1", "1-2", "2-5", "5-10", "10-20", "20-50", "50-100", ">=100"};
    int count[8] = {0};
    for (int i = 0; i < w->n_gaps; i++) {
        int b = 0;
        while (b < 7 && w->gaps_ns[i] / 1e3 >= edge[b]) b++;
        count[b]++;
    }
    printf("gap_hist_%s=", cfg);
    for (int b = 0; b < 8; b++) printf("%s%s:%d", b ? " " : "", label[b], count[b]);
    printf(" (us: count)\n");
}

/* One configuration: prefill, warm up, then STEPS synchronized decode steps inside a marked
 * window, the way a generate loop runs them. timeline: the PNG of a typical step (or NULL). */
static Result run_config(Ctx *x, Mode mode, int batch, double dispatch_us, int write_files, const char *timeline) {
    Result r = {"", mode, batch, dispatch_us};
    snprintf(r.name, sizeof r.name, "%s_b%d_d%.0f", mode_name(mode), batch, dispatch_us);
    cudaStream_t s = gpu_model_stream(x->m);
    gpu_prefill(x->m, x->ids, PROMPT, batch, NULL);
    g_launch.dispatch_us = dispatch_us;
    for (int i = 0; i < WARMUP; i++) {
        if (i == WARMUP - 1) {        /* CUPTI's fresh buffer is paid for here, not in the window */
            trace_flush();
            trace_clear(x->tr);
        }
        gpu_decode_step(x->m, mode);
        CUDA_CHECK(cudaStreamSynchronize(s));
    }

    uint64_t mark[STEPS + 1];
    double ms[STEPS];
    for (int i = 0; i < STEPS; i++) {
        mark[i] = x->traced ? trace_now() : 0;
        double t = now_ms();
        gpu_decode_step(x->m, mode);
        CUDA_CHECK(cudaStreamSynchronize(s));
        ms[i] = now_ms() - t;
    }
    mark[STEPS] = x->traced ? trace_now() : 0;
    g_launch.dispatch_us = 0;
    r.tpot_ms = stats_of(ms, STEPS).median;
    int typical = 0;                  /* the step closest to the median, for the timeline */
    for (int i = 1; i < STEPS; i++)
        if (fabs(ms[i] - r.tpot_ms) < fabs(ms[typical] - r.tpot_ms)) typical = i;
    if (!x->traced) {
        r.busy = r.gaps_per_step = r.gap_median_us = r.gap_p90_us = r.host_bound = r.launch_api_us = NAN;
        r.launches_per_step = r.kernels_per_step = r.gpu_ms = NAN;
        return r;
    }
    trace_flush();
    TraceWindow w = trace_window(x->tr, mark[0], mark[STEPS], STEPS);
    r.busy = 100 * w.busy_ratio;
    r.gaps_per_step = (double)w.n_gaps / STEPS;
    r.gap_median_us = w.gap.median / 1e3;
    r.gap_p90_us = w.gap.p90 / 1e3;
    r.host_bound = 100 * w.host_bound_share;
    r.launch_api_us = w.launch_api_ns.median / 1e3;
    r.launches_per_step = w.launch_calls_per_step;
    r.kernels_per_step = w.kernels_per_step;
    r.gpu_ms = w.busy_ns / 1e6 / STEPS;
    if (write_files) {
        char path[4096];
        result_path(path, sizeof path, "trace_", r.name, "json");
        if (trace_write_chrome(x->tr, mark[0], mark[STEPS], path) == 0) printf("trace_file=%s\n", path);
        result_path(path, sizeof path, "gaps_", r.name, "tsv");
        write_gaps(path, &w);
        print_histogram(r.name, &w);
    }
    if (timeline) {
        char title[128];
        snprintf(title, sizeof title, "one decode step, %s, batch %d: %.0f launch calls, %.0f kernels, busy %.0f%%",
                 mode_name(mode), batch, r.launches_per_step, r.kernels_per_step, r.busy);
        Chart c = {};
        c.title = title;
        c.xlabel = "us from the start of the step";
        c.width = 1600;
        if (chart_timeline(&c, timeline, x->tr, mark[typical], mark[typical + 1]) == 0) printf("timeline_file=%s\n", timeline);
    }
    trace_window_free(&w);
    return r;
}

static void report_config(const Result *r, double floor_ms) {
    char key[64], note[256];
    snprintf(note, sizeof note, "%s, batch %d, dispatch %.0f us per launch; %d synced steps under the tracer",
             mode_name(r->mode), r->batch, r->dispatch_us, STEPS);
    snprintf(key, sizeof key, "tpot_ms_%s", r->name);
    report_floored(DAY, key, floor_ms, r->tpot_ms, "ms", note);
    if (isnan(r->busy)) return;
    struct { const char *stem, *unit; double v; } items[] = {
        {"busy_", "%", r->busy}, {"gaps_per_step_", "count", r->gaps_per_step},
        {"gap_median_us_", "us", r->gap_median_us}, {"gap_p90_us_", "us", r->gap_p90_us},
        {"host_bound_", "%", r->host_bound}, {"launch_api_us_", "us", r->launch_api_us},
        {"launches_per_step_", "count", r->launches_per_step}, {"gpu_ms_per_step_", "ms", r->gpu_ms},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        snprintf(key, sizeof key, "%s%s", items[i].stem, r->name);
        report(DAY, key, NAN, items[i].v, items[i].unit, note);
    }
}

static const Result *find(const Result *res, int n, Mode mode, int batch, double d) {
    for (int i = 0; i < n; i++)
        if (res[i].mode == mode && res[i].batch == batch && res[i].dispatch_us == d) return &res[i];
    die("day11: no result for %s batch %d dispatch %.0f (a bug in this program)", mode_name(mode), batch, d);
}

int main(int argc, char **argv) {
    const char *model_dir = model_arg(argc, argv, "day11", usage);
    setvbuf(stdout, NULL, _IOLBF, 0);
    GpuFacts g;
    gpu_facts(&g);
    gpu_facts_print(&g);

    mkdir(results_dir(), 0755);   /* the traces come before the first row, which would make it */

    /* The tracer first: NVTX binds to CUPTI at the first NVTX call, the model's first launch. */
    Trace tr = {0};
    Ctx x = {NULL, &tr, trace_start(&tr) == 0};
    if (!x.traced) printf("trace=off: no CUPTI trace; only TPOT can be measured (no busy ratio, gaps or files)\n");
    GpuModelOpts mo = {.model_dir = model_dir, .seed = 1, .max_batch = MAX_BATCH,
                       .max_seq = PROMPT + WARMUP + STEPS + 8, .quiet = 1};
    x.m = gpu_model_open(&mo);
    const Config *c = gpu_model_config(x.m);
    config_print(c);
    if (!model_dir)
        printf("weights=synthetic (TinyLlama's shape, seeded): every kernel, gap and time is real, the text is not\n");
    prompt_ids(model_dir, c, PROMPT, x.ids);
    x.floor_ms = floor_tpot_ms(weight_bytes(c), g.bw_gbs);
    printf("floor_tpot_ms=%.3f (%.2f GB of weights / %.0f GB/s)\n", x.floor_ms, weight_bytes(c) / 1e9, g.bw_gbs);

    /* ---- 1. The grid: mode x batch x dispatch ------------------------------------------- */
    printf("\n== mode x batch x dispatch: %d warm-up + %d measured steps each ==\n", WARMUP, STEPS);
    Result res[NCFG];
    int n = 0;
    char png_eager[4096], png_graph[4096];
    result_path(png_eager, sizeof png_eager, "timeline_", "eager", "png");
    result_path(png_graph, sizeof png_graph, "timeline_", "graph", "png");
    for (int mi = 0; mi < 3; mi++)
        for (int bi = 0; bi < 2; bi++)
            for (int di = 0; di < 2; di++) {
                int strip = BATCHES[bi] == 1 && DISPATCH[di] == 0 && MODES[mi] != MODE_FUSED;
                res[n] = run_config(&x, MODES[mi], BATCHES[bi], DISPATCH[di], 1,
                                    strip ? (MODES[mi] == MODE_EAGER ? png_eager : png_graph) : NULL);
                report_config(&res[n], x.floor_ms);
                n++;
            }
    printf("\n%-18s %8s %7s %9s %10s %10s %11s %9s %13s %11s\n", "config", "TPOT ms", "busy %", "gaps/step",
           "gap med us", "gap p90 us", "host-bound %", "launch us", "launches/step", "GPU ms/step");
    for (int i = 0; i < n; i++)
        printf("%-18s %8.3f %7.1f %9.1f %10.2f %10.2f %11.1f %9.2f %13.1f %11.3f\n", res[i].name, res[i].tpot_ms,
               res[i].busy, res[i].gaps_per_step, res[i].gap_median_us, res[i].gap_p90_us, res[i].host_bound,
               res[i].launch_api_us, res[i].launches_per_step, res[i].gpu_ms);

    /* ---- 2. The dispatch sweep: where does the step turn overhead-bound? --------------- */
    printf("\n== dispatch sweep: eager, batch 1 ==\n");
    Result sw[NSWEEP];
    for (int i = 0; i < NSWEEP; i++) {
        int in_grid = SWEEP[i] == DISPATCH[0] || SWEEP[i] == DISPATCH[1];
        sw[i] = in_grid ? *find(res, n, MODE_EAGER, 1, SWEEP[i]) : run_config(&x, MODE_EAGER, 1, SWEEP[i], 0, NULL);
        char key[64], note[128];
        snprintf(note, sizeof note, "eager, batch 1, dispatch %.0f us per launch", SWEEP[i]);
        snprintf(key, sizeof key, "sweep_tpot_ms_d%.0f", SWEEP[i]);
        report_floored(DAY, key, x.floor_ms, sw[i].tpot_ms, "ms", note);
        snprintf(key, sizeof key, "sweep_busy_d%.0f", SWEEP[i]);
        if (x.traced) report(DAY, key, NAN, sw[i].busy, "%", note);
    }
    /* Predicted: the host needs launches x (dispatch + launch call) per step; the GPU needs
     * its kernel time. They are equal at dispatch = GPU time / launches - launch call.
     * Measured: the flat level TPOT(0) meets the line through the two largest dispatches. */
    const Result *r0 = &sw[0], *ra = &sw[NSWEEP - 2], *rb = &sw[NSWEEP - 1];
    double predicted = NAN, measured = NAN;
    if (x.traced) {
        predicted = r0->gpu_ms * 1e3 / r0->launches_per_step - r0->launch_api_us;
        printf("crossover_predicted_us=%.1f = %.3f ms of kernels / %.0f launches - %.2f us per launch call\n",
               predicted, r0->gpu_ms, r0->launches_per_step, r0->launch_api_us);
    }
    double slope = (rb->tpot_ms - ra->tpot_ms) / (rb->dispatch_us - ra->dispatch_us);   /* ms per us */
    double launches = x.traced ? r0->launches_per_step : gpu_step_counts(x.m, MODE_EAGER).host_launches;
    printf("sweep_slope=%.4f ms per us of dispatch (%.0f launches per step would give %.4f)\n", slope, launches,
           launches / 1e3);
    int rise = 0;                     /* the first dispatch at which TPOT is 10% above TPOT(0) */
    while (rise < NSWEEP - 1 && sw[rise].tpot_ms <= 1.1 * r0->tpot_ms) rise++;
    if (slope > 0.25 * launches / 1e3) {
        measured = fmax(0, rb->dispatch_us - (rb->tpot_ms - r0->tpot_ms) / slope);
        printf("crossover_measured_us=%.1f (TPOT(0) = %.3f ms meets the rising line through d=%.0f and d=%.0f; "
               "TPOT first rose 10%% at d=%.0f)\n", measured, r0->tpot_ms, ra->dispatch_us, rb->dispatch_us,
               sw[rise].dispatch_us);
    } else {
        printf("crossover_measured: TPOT did not rise with dispatch up to %.0f us: the step stays GPU-bound\n",
               rb->dispatch_us);
    }
    if (predicted < 0) printf("the prediction is below 0: with no dispatch at all, the launches already take "
                              "longer than the kernels (overhead-bound at dispatch 0)\n");
    report(DAY, "crossover_us", predicted, measured, "us",
           "dispatch per launch at which launches x (dispatch + launch call) = GPU time per step");
    printf("host_us_per_launch_d%.0f=%.1f (TPOT / launches: dispatch + launch call + the rest of the op)\n",
           rb->dispatch_us, rb->tpot_ms * 1e3 / launches);

    if (!x.traced) {
        gpu_model_free(x.m);
        return rows_exit_code();
    }

    /* ---- 3. What the numbers say -------------------------------------------------------- */
    printf("\n== what a CUDA graph removes, and what it does not ==\n");
    const Result *e = find(res, n, MODE_EAGER, 1, 0), *f = find(res, n, MODE_FUSED, 1, 0),
                 *gr = find(res, n, MODE_GRAPH, 1, 0);
    printf("launch_calls_per_step eager=%.0f fused=%.0f graph=%.0f (one cudaGraphLaunch for all %.0f kernels)\n",
           e->launches_per_step, f->launches_per_step, gr->launches_per_step, gr->kernels_per_step);
    printf("kept: kernels_per_step fused=%.0f graph=%.0f; gpu_ms_per_step fused=%.3f graph=%.3f (the kernels' "
           "own time); kernel boundaries remain: %.1f gaps per step, median %.2f us\n", f->kernels_per_step,
           gr->kernels_per_step, f->gpu_ms, gr->gpu_ms, gr->gaps_per_step, gr->gap_median_us);
    const Result *g40 = find(res, n, MODE_GRAPH, 1, 40), *e40 = find(res, n, MODE_EAGER, 1, 40);
    printf("dispatch 40 us: eager TPOT %.3f -> %.3f ms, graph TPOT %.3f -> %.3f ms (a replay pays the "
           "dispatcher once per step, not once per op)\n", e->tpot_ms, e40->tpot_ms, gr->tpot_ms, g40->tpot_ms);

    printf("\n== batch 1 vs 32 (self-tests 4 and 6) ==\n");
    for (int di = 0; di < 2; di++)
        for (int mi = 0; mi < 3; mi++) {
            const Result *b1 = find(res, n, MODES[mi], 1, DISPATCH[di]), *b32 = find(res, n, MODES[mi], 32, DISPATCH[di]);
            printf("%-5s d%-2.0f: launch_api_us %.2f -> %.2f, gpu_ms %.3f -> %.3f, busy %.0f%% -> %.0f%%, "
                   "TPOT %.3f -> %.3f ms (x%.2f for 32x the tokens): %s\n", mode_name(MODES[mi]), DISPATCH[di],
                   b1->launch_api_us, b32->launch_api_us, b1->gpu_ms, b32->gpu_ms, b1->busy, b32->busy, b1->tpot_ms,
                   b32->tpot_ms, b32->tpot_ms / b1->tpot_ms,
                   b1->busy < 80 ? "overhead-bound at batch 1: gaps on the GPU lane"
                                 : "GPU-bound at batch 1: the lane is full, the kernels decide (day10)");
        }
    printf("\n== acceptance question 5 ==\n");
    printf("gaps: eager batch 1 with a Python-like dispatcher is busy %.0f%%; %.0f%% of its gap time the next "
           "launch call had not started: the GPU waits for the CPU\n", e40->busy, e40->host_bound);
    printf("cure 1, fewer launches: busy eager %.0f%% -> fused %.0f%% -> graph %.0f%% (dispatch 40 us, batch 1)\n",
           e40->busy, find(res, n, MODE_FUSED, 1, 40)->busy, g40->busy);
    const Result *e40b32 = find(res, n, MODE_EAGER, 32, 40);
    printf("cure 2, more work per launch: eager batch 1 -> 32 at dispatch 40 us: GPU time %.3f -> %.3f ms per step, "
           "busy %.0f%% -> %.0f%% (it helps only as far as the kernels grow: 32 rows is little work for this GPU's "
           "small kernels)\n", e40->gpu_ms, e40b32->gpu_ms, e40->busy, e40b32->busy);
    printf("nvidia-smi would show ~100%% utilization (a kernel ran in every ~100 ms sample: %.0f kernels per second) "
           "while busy=%.0f%% (mistake #13)\n", e40->kernels_per_step / (e40->tpot_ms / 1e3), e40->busy);
    /* Host-bound: the launches set TPOT, so halving the kernels' time halves the busy ratio. */
    printf("faster_gpu_2x: eager d40 GPU time %.3f -> %.3f ms per step, TPOT stays ~%.3f ms, busy %.0f%% -> ~%.0f%% "
           "(mistake #14)\n", e40->gpu_ms, e40->gpu_ms / 2, e40->tpot_ms, e40->busy, e40->busy / 2);

    trace_stop();
    trace_free(&tr);
    gpu_model_free(x.m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
