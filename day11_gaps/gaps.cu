/* Day 11 · Is the GPU waiting for the CPU?
 *
 * Day 10 named the kernels and summed their GPU time. That sum is not the step's time: a
 * kernel can start only after the CPU has launched it, and when launching a kernel takes
 * longer than running it, the GPU lane of the timeline fills with white. Those gaps are
 * overhead-bound, the third kind of bottleneck, made visible. This program measures them:
 *
 *   busy ratio   GPU time per step (kernel intervals merged) / TPOT of the step as it runs
 *                untraced: of each millisecond a user waits for a token, how much had a
 *                kernel running
 *   gaps         the idle stretches between kernels inside a step: count, median, p90
 *   host-bound   the share of gap time in which the next kernel's launch call had not even
 *                begun: the GPU was waiting for the CPU, not for its own queue
 *   launch API   how long one cudaLaunchKernel takes on the CPU
 *
 * The trap (the Vietnamese lesson's second one, "the profiler perturbs what it measures"): a
 * tracer adds host work to every launch, so under a full trace the bare C eager step here
 * takes up to three quarters longer (`tracer_pct_full_eager_b1_d0` -6 to +76% (H200)) and its
 * timeline shows gaps the real run does not have. So each step is run three times: untraced
 * (the TPOT every day reports), under the lightest trace (kernel records only: the GPU time
 * and the gaps), and under the full trace (CPU calls too: the host-bound share, the launch
 * cost, the Perfetto files). The busy ratio divides the light trace's GPU time by the untraced
 * TPOT, never by a traced span; both tracers' costs are measured and printed (tracer_pct_*,
 * tracer_us_per_launch), and so is the busy ratio the full trace would have shown
 * (busy_traced_*), to see the trap's size.
 *
 * The configurations: four ways of running the same step (eager: PyTorch eager's 903 small
 * kernels; graph_eager: the same kernels replayed as one CUDA graph; fused: one kernel per
 * natural op; graph: the fused step replayed) x batch 1 and 32 x a host cost per launch of 0
 * (this kit's bare C) or the emulated dispatcher's (gpu/dispatch.h: before each launch the
 * launch path busy-waits a time drawn from the host gaps of a real PyTorch trace of this
 * model, median --dispatch-us, 14 us by default, mean 1.49x and p90 2.9x the median; the
 * lesson's Python and PyTorch cost per op, so its regime, "HF eager", appears on any GPU;
 * --dispatch-from draws from your own trace). Rows name the median: _d14. A sweep of that
 * median (0, 5, 10, 14, 20 us, eager, batch 1) shows where the step turns overhead-bound.
 * nvidia-smi's utilization (NVML) is sampled while the emulated HF eager step and the graph
 * step run: it reads the graph step near 100%, though that step uses about half the bandwidth
 * (mistake #13). Files: a Chrome trace per configuration for Perfetto
 * (results/trace_<cfg>.json), the gaps (results/gaps_<cfg>.tsv, in us) and two PNG strips of
 * one step (results/timeline_eager.png, timeline_graph.png; eager and graph at batch 1 with
 * the emulated dispatcher). Beyond the week, where the GPU and the build run it (sm_90), a
 * seventeenth configuration: persistent mode, the whole step as one kernel (day09's section
 * 8), batch 1, bare C, for what it removes from the timeline.
 *
 * Build and run:   make day11      (or: make bin/day11_gaps && bin/day11_gaps [--model DIR]
 *                                   [--dispatch-us N] [--dispatch-from TRACE] [--verbose])
 *
 * What to expect (a summary block: the rows of four configurations and a table of all sixteen,
 * and persistent's line where it runs; --verbose prints every configuration's rows and a line
 * per file; rows in results/rows.tsv).
 * H200: the three reference runs (answers/reference/runs/); T4: the lesson's figures, or
 * arithmetic shown, not measured here (a T4's eager kernels: ~9-12 ms a step, the lesson's
 * 7.5-10 ms of GEMVs + ~750 small kernels of 2-3 us).
 *   busy_eager_b1_d14    the lesson's regime, emulated HF eager: `gpu_ms_per_step_eager_b1_d14`
 *                        1.99-2.00 ms (H200) of kernels in a step the launches set, 903 x (20.8 us,
 *                        the mean draw, + ~6.5 us, the launch call) = ~24.7 ms: predicted busy
 *                        2.0 / 24.7 = ~8%; measured `busy_eager_b1_d14` 7.6-7.8% (H200) of
 *                        `tpot_ms_eager_b1_d14` 25.6-26.4 ms (H200). T4 (the lesson) 50-65%: ~8 ms of
 *                        kernels in ~14 ms of launches, for 300-400 kernels; the kit's 903 launches
 *                        there: ~9-12 ms of kernels in ~25 ms, 35-50%
 *   busy_eager_b1_d0     bare C: 903 launches at ~6.5 us of host time each (~5.9 ms) trail kernels
 *                        of ~2.2 us (2.0 ms): predicted ~34%, measured `busy_eager_b1_d0` 26-32%
 *                        (H200), the host's noise moving `tpot_ms_eager_b1_d0` 6.2-7.5 ms (H200) from
 *                        run to run; on a T4 the same ~6 ms of launches hide under its ~9-12 ms of
 *                        kernels: nearly kernel-bound (no Python)
 *   busy_graph_eager_b1_d14  the same kernels replayed, one draw a step: `busy_graph_eager_b1_d14`
 *                        82-89% (H200), `tpot_ms_graph_eager_b1_d14` 2.34-2.56 ms (H200);
 *                        `busy_graph_b1_d0` 94-97% (H200): one launch per step, kernels back to back
 *                        (overlapping under programmatic dependent launch on sm_90: one gap per
 *                        step is left)
 *   busy_traced_eager_b1_d0  what a full trace's timeline shows for the bare C step:
 *                        `busy_traced_eager_b1_d0` 18-28% (H200)
 *   tracer_pct_full_eager_b1_d0  `tracer_pct_full_eager_b1_d0` -6 to +76% (H200)
 *                        (`tracer_us_per_launch` -0.5 to 5.2 us (H200)): in one run of three the cost
 *                        drowned in the host's noise; under kernel records alone the eager step,
 *                        `tracer_pct_kernels_eager_b1_d0` -21 to +47% (H200), moved with that noise,
 *                        the graph step `tracer_pct_kernels_graph_b1_d0` 14-18% (H200) slower (a
 *                        record per graph node), so a graph's GPU time is taken with that cost in it
 *   batch 32             the same launches at the same cost (`launch_api_us_eager_b32_d14` 6.5-7.4 us
 *                        (H200) against `launch_api_us_eager_b1_d14` 4.8-7.7 us (H200)); busy rises as
 *                        far as the kernels grow: `gpu_ms_per_step_eager_b32_d14` 2.26 ms (H200), x1.13,
 *                        `busy_eager_b32_d14` 8.6-9.4% (H200), `tpot_ms_eager_b32_d14` 24.0-26.2 ms
 *                        (H200); a T4's kernels grow more
 *   gap_median_us        eager d14: the draw plus the launch call less a kernel, 14 + ~6.5 - ~2.2 =
 *                        ~18 us at the median, spread like a real run's gaps:
 *                        `gap_median_us_eager_b1_d14` 18.6-23.5 us (H200), `gap_p90_us_eager_b1_d14`
 *                        46.5-57.0 us (H200); PyTorch on the same H200: `trace_gap_median_us` 18.1
 *                        us (H200), `trace_gap_p90_us` 44.9 us (H200) (bin/trace_stats on the
 *                        fixture's trace: 18.5 and 45 us). Eager d0 `gap_median_us_eager_b1_d0`
 *                        4.0-7.1 us (H200); graph `gap_median_us_graph_b1_d0` 2.9-3.1 us (H200)
 *   nvml_util            graph step `nvml_util_graph_b1_d0` 91-93% (H200) with `mbu_graph` 54.7-55.1%
 *                        (H200): nvidia-smi counts the time a kernel ran, not how much of the GPU it
 *                        used. The emulated HF step, `nvml_util_eager_b1_d14` 11-12% (H200), reads
 *                        near its busy ratio on an H200's driver (not the 100% the lesson describes
 *                        for a window in which any kernel ran)
 *   crossover_us         predicted ((GPU time per step / launches - host time per launch) / 1.49,
 *                        the draws' mean over their median): (2.0 ms / 903 - ~6.5 us) / 1.49 =
 *                        ~-2.9 us, the row's theory -2.0 to -3.2 us (H200): overhead-bound with no
 *                        dispatcher at all; measured `crossover_us` 0-0.35 us (H200). T4
 *                        (arithmetic): (9-12 ms / 903 - ~6.5 us) / 1.49 = 2-5 us
 *   persistent_b1_d0     beyond the week: 1 kernel, 0 gaps a step, `busy_persistent_b1_d0`
 *                        98.2-98.9% (H200) against `busy_graph_b1_d0` 94-97% (H200) (113 kernels, 1
 *                        gap), yet `tpot_ms_persistent_b1_d0` 1.14-1.15 ms (H200) against
 *                        `tpot_ms_graph_b1_d0` 0.87-0.90 ms (H200): a full GPU lane is not a fast
 *                        step. T4 and the T4 switch: "persistent=not run (...)", the reason
 * It proves acceptance question 5 (gaps mean the GPU waits for the CPU; the two cures are
 * fewer launches - CUDA graphs, fusion - and more work per launch - batch) and self-tests
 * 4 (batch 32: same CPU cost, longer kernels, higher busy ratio, TPOT barely moves) and 6
 * (a flat TPOT over batch is not proof of memory-bound: the GPU lane decides).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "args.h"
#include "report/chart.h"
#include "gpu/gpu.h"
#include "gpu/dispatch.h"
#include "gpu/gpu_model.h"
#include "gpu/launch.h"
#include "measure/nvml_util.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "model/theory.h"
#include "measure/trace.h"

#define DAY "day11"
enum { WARMUP = 3, STEPS = 5, PROMPT = 32, MAX_BATCH = 32, NSWEEP = 5, NMODES = 4, NCFG = 17, UTIL_MS = 1500 };
static const Mode MODES[NMODES] = {MODE_EAGER, MODE_GRAPH_EAGER, MODE_FUSED, MODE_GRAPH};
static const int BATCHES[] = {1, 32};
static const double SWEEP[NSWEEP] = {0, 5, 10, 14, 20};   /* medians, us: 14 the default, 20 a mean of 30 */
static double DISPATCH[2] = {0, NAN};   /* [1]: --dispatch-us, the median (NAN until parsed: not given) */

typedef struct {
    char name[40];           /* <mode>_b<batch>_d<dispatch_us>, the median rounded */
    Mode mode;
    int batch;
    double dispatch_us;      /* the emulated dispatcher's median, us (0: bare C) */
    double tpot_ms;          /* untraced: median of the synchronized steps */
    double host_ms;          /* untraced: the host's time to hand the step over (before the sync) */
    double gpu_ms;           /* light trace: kernel intervals merged, per step */
    double busy;             /* gpu_ms / tpot_ms, % */
    double gaps_per_step, gap_median_us, gap_p90_us;                  /* light trace, inside steps */
    double tpot_light_ms, tpot_full_ms;                               /* under each tracer */
    double busy_traced, host_bound, launch_api_us, launches_per_step, kernels_per_step;   /* full trace */
} Result;

typedef struct { GpuModel *m; Trace *tr; int ids[PROMPT]; double floor_ms; int verbose; } Ctx;

static const char USAGE[] =
    "usage: day11_gaps [--model DIR] [--dispatch-us N] [--dispatch-from TRACE] [--verbose]\n"
    "  Measures the gaps on the GPU timeline of a decode step (busy ratio, gaps, host-bound\n"
    "  share, launch cost, TPOT) for eager/graph_eager/fused/graph x batch 1/32 x dispatch 0/N us,\n"
    "  untraced and under two tracers; sweeps the dispatch cost; samples nvidia-smi's utilization;\n"
    "  writes Chrome traces, gap lists and two timeline PNGs to results/.\n"
    "  --model DIR       config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n"
    "  --dispatch-us N   the emulated dispatcher's median cost per launch (default 14 us, the median of\n"
    "                    a real PyTorch trace's host time per launch; its mean is 1.5x that)\n"
    "  --dispatch-from TRACE  draw the dispatcher's cost from your torch.profiler trace instead (its\n"
    "                    median, or --dispatch-us's)\n"
    "  --verbose         a line per configuration and file, not only the summary\n";

static void result_path(char *out, size_t cap, const char *stem, const char *name, const char *ext) {
    snprintf(out, cap, "%s/%s%s.%s", results_dir(), stem, name, ext);
}

/* One gap per line, in us, for day12's histogram. */
static void write_gaps(const char *path, const double *gaps_ns, int n) {
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s; check that the results folder is writable", path);
    for (int i = 0; i < n; i++) fprintf(f, "%.3f\n", gaps_ns[i] / 1e3);
    if (fclose(f) != 0) die("cannot finish writing %s (disk full?)", path);
}

/* Prefill, warm up, then STEPS synchronized decode steps, the way a generate loop runs them;
 * mark[i] is the tracer's clock before step i (and after the last). Returns the median step;
 * *host_ms, the median time until the host had launched it all. */
static double run_steps(Ctx *x, const Result *r, uint64_t *mark, double *host_ms) {
    cudaStream_t s = gpu_model_stream(x->m);
    gpu_prefill(x->m, r->mode, x->ids, PROMPT, r->batch, NULL);
    g_launch.dispatch_us = r->dispatch_us;
    for (int i = 0; i < WARMUP; i++) {
        if (i == WARMUP - 1 && trace_collecting()) {   /* CUPTI's fresh buffer is paid for here */
            trace_flush();
            trace_clear(x->tr);
        }
        gpu_decode_step(x->m, r->mode);
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
    double ms[STEPS], host[STEPS];
    for (int i = 0; i < STEPS; i++) {
        mark[i] = trace_collecting() ? trace_now() : 0;
        double t = now_ms();
        gpu_decode_step(x->m, r->mode);
        host[i] = now_ms() - t;
        CUDA_CHECK(cudaStreamSynchronize(s));
        ms[i] = now_ms() - t;
    }
    mark[STEPS] = trace_collecting() ? trace_now() : 0;
    g_launch.dispatch_us = 0;
    if (trace_collecting()) trace_flush();
    if (host_ms) *host_ms = median_of(host, STEPS);
    return median_of(ms, STEPS);
}

/* Under the kernel-only trace: GPU time per step, and the gaps inside each step (the idle
 * before a step's first kernel is the synchronize and the next launch, not a gap). */
static void light_pass(Ctx *x, Result *r) {
    uint64_t mark[STEPS + 1];
    r->tpot_light_ms = run_steps(x, r, mark, NULL);
    TraceWindow all = trace_window(x->tr, mark[0], mark[STEPS], STEPS);
    r->gpu_ms = all.busy_ns / 1e6 / STEPS;
    r->busy = 100 * r->gpu_ms / r->tpot_ms;
    trace_window_free(&all);
    double *gaps = NULL;
    int n = 0;
    for (int i = 0; i < STEPS; i++) {
        TraceWindow w = trace_window(x->tr, mark[i], mark[i + 1], 1);
        gaps = (double *)realloc(gaps, sizeof(double) * (n + w.n_gaps + 1));
        if (!gaps) die("day11: out of host memory");
        memcpy(gaps + n, w.gaps_ns, sizeof(double) * w.n_gaps);
        n += w.n_gaps;
        trace_window_free(&w);
    }
    Stats g = stats_of(gaps, n);
    r->gaps_per_step = (double)n / STEPS;
    r->gap_median_us = n ? g.median / 1e3 : 0;
    r->gap_p90_us = n ? g.p90 / 1e3 : 0;
    char path[4096];
    result_path(path, sizeof path, "gaps_", r->name, "tsv");
    write_gaps(path, gaps, n);
    free(gaps);
}

/* Under the full trace: the CPU side (host-bound share, launch calls), what the traced
 * timeline shows, and the files. timeline: the PNG of the step closest to the median. */
static void full_pass(Ctx *x, Result *r, const char *timeline) {
    uint64_t mark[STEPS + 1];
    r->tpot_full_ms = run_steps(x, r, mark, NULL);
    TraceWindow w = trace_window(x->tr, mark[0], mark[STEPS], STEPS);
    r->busy_traced = 100 * w.busy_ratio;
    r->host_bound = 100 * w.host_bound_share;
    r->launch_api_us = w.launch_api_ns.median / 1e3;
    r->launches_per_step = w.launch_calls_per_step;
    r->kernels_per_step = w.kernels_per_step;
    trace_window_free(&w);
    char path[4096];
    result_path(path, sizeof path, "trace_", r->name, "json");
    if (trace_write_chrome(x->tr, mark[0], mark[STEPS], path) == 0 && x->verbose) printf("trace_file=%s\n", path);
    if (timeline) {
        char title[160];
        snprintf(title, sizeof title, "one decode step, %s, batch %d, dispatch median %.0f us: %.0f launch calls, %.0f kernels "
                 "(under the full tracer)", mode_name(r->mode), r->batch, r->dispatch_us, r->launches_per_step,
                 r->kernels_per_step);
        Chart c = {};
        c.title = title;
        c.xlabel = "us from the start of the step";
        c.width = 1600;
        if (chart_timeline(&c, timeline, x->tr, mark[STEPS / 2], mark[STEPS / 2 + 1]) == 0 && x->verbose)
            printf("timeline_file=%s\n", timeline);
    }
}

static void report_config(const Result *r, double floor_ms, int traced) {
    char key[64], note[256];
    snprintf(note, sizeof note, "%s, batch %d, dispatch median %.0f us per launch; %d synced steps, untraced",
             mode_name(r->mode), r->batch, r->dispatch_us, STEPS);
    snprintf(key, sizeof key, "tpot_ms_%.40s", r->name);
    report_floored(DAY, key, floor_ms, r->tpot_ms, "ms", note);
    if (!traced) return;
    struct { const char *stem, *unit, *how; double v; } items[] = {
        {"busy_", "%", "GPU time (kernel trace) / untraced TPOT", r->busy},
        {"gpu_ms_per_step_", "ms", "kernel intervals merged (kernel trace)", r->gpu_ms},
        {"gaps_per_step_", "count", "inside each step (kernel trace)", r->gaps_per_step},
        {"gap_median_us_", "us", "inside each step (kernel trace)", r->gap_median_us},
        {"gap_p90_us_", "us", "inside each step (kernel trace)", r->gap_p90_us},
        {"host_bound_", "%", "share of gap time before the next launch call (full trace)", r->host_bound},
        {"launch_api_us_", "us", "median launch call (full trace)", r->launch_api_us},
        {"launches_per_step_", "count", "launch calls per step (full trace)", r->launches_per_step},
        {"busy_traced_", "%", "what the full trace's timeline shows: union / span", r->busy_traced},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        snprintf(key, sizeof key, "%.20s%.40s", items[i].stem, r->name);
        snprintf(note, sizeof note, "%s, batch %d, dispatch median %.0f us: %s", mode_name(r->mode), r->batch, r->dispatch_us,
                 items[i].how);
        report(DAY, key, NAN, items[i].v, items[i].unit, note);
    }
}

static const Result *find(const Result *res, int n, Mode mode, int batch, double d) {
    for (int i = 0; i < n; i++)
        if (res[i].mode == mode && res[i].batch == batch && res[i].dispatch_us == d) return &res[i];
    die("day11: no result for %s batch %d dispatch %.0f (a bug in this program)", mode_name(mode), batch, d);
}

/* nvidia-smi's utilization.gpu while a configuration runs untraced for UTIL_MS. */
static void nvml_row(Ctx *x, const Result *r) {
    char bus[32], why[200], key[64], note[200];
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    snprintf(key, sizeof key, "nvml_util_%s", r->name);
    gpu_prefill(x->m, r->mode, x->ids, PROMPT, r->batch, NULL);
    g_launch.dispatch_us = r->dispatch_us;
    gpu_decode_step(x->m, r->mode);                       /* capture a graph before sampling */
    CUDA_CHECK(cudaStreamSynchronize(gpu_model_stream(x->m)));
    if (nvml_sampler_start(bus, why, sizeof why) != 0) {
        printf("%s=not available (%s)\n", key, why);
        g_launch.dispatch_us = 0;
        return;
    }
    int steps = 0, n;
    for (double t0 = now_ms(); now_ms() - t0 < UTIL_MS; steps++) {
        gpu_decode_step(x->m, r->mode);
        CUDA_CHECK(cudaStreamSynchronize(gpu_model_stream(x->m)));
        if ((steps + 1) % 64 == 0) gpu_prefill(x->m, r->mode, x->ids, PROMPT, r->batch, NULL);   /* stay inside the cache */
    }
    double util = nvml_sampler_stop(&n);
    g_launch.dispatch_us = 0;
    snprintf(note, sizeof note, "nvidia-smi's utilization.gpu, median of %d samples over %d steps (%s, batch %d, "
             "dispatch median %.0f us); busy %.0f%%", n, steps, mode_name(r->mode), r->batch, r->dispatch_us, r->busy);
    report(DAY, key, NAN, util, "%", note);
}

int main(int argc, char **argv) {
    const char *model_dir = NULL, *dispatch_from = NULL;
    int verbose = 0;
    const ArgFlag flags[] = {ARG_MODEL(&model_dir), ARG_DISPATCH_US(&DISPATCH[1]), ARG_DISPATCH_FROM(&dispatch_from),
                             {"--verbose", ARG_FLAG, &verbose, 0, 0, "a line per configuration and file"}, {0}};
    args_parse("day11", USAGE, argc, argv, flags, NULL);
    DISPATCH[1] = dispatch_setup("day11", DISPATCH[1], dispatch_from, DISPATCH_US_DEFAULT);
    /* the grid measures each configuration at dispatch 0 (bare C) and at DISPATCH[1] and names
     * its rows <mode>_b<batch>_d<dispatch>, rounded (%.0f): a cost named d0 would write the bare-C
     * rows' keys twice */
    char d_name[32];
    snprintf(d_name, sizeof d_name, "%.0f", DISPATCH[1]);
    if (!strcmp(d_name, "0"))
        die("day11: --dispatch-us %g would repeat the bare-C rows (<mode>_b<batch>_d0) day11 always measures (rows name the cost in "
            "whole microseconds); give the emulated dispatcher's cost, above 0.5", DISPATCH[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_facts_print(&g);
    mkdir(results_dir(), 0755);   /* the gap lists come before the first row, which would make it */

    Trace tr = {0};
    Ctx x = {NULL, &tr, {0}, 0, verbose};
    trace_bind_nvtx();            /* the traces later show each op's name on the CPU track */
    GpuModelOpts mo = {.model_dir = model_dir, .seed = 1, .max_batch = MAX_BATCH, .max_seq = PROMPT + 128, .quiet = 1};
    x.m = gpu_model_open(&mo);
    const Config *c = gpu_model_config(x.m);
    config_print(c);
    if (!model_dir)
        printf("weights=synthetic (TinyLlama's shape, seeded): every kernel, gap and time is real, the text is not\n");
    prompt_ids(model_dir, c, PROMPT, x.ids);
    x.floor_ms = floor_tpot_ms(weight_bytes(c), g.bw_gbs);
    printf("floor_tpot_ms=%.3f (%.2f GB of weights / %.0f GB/s)\n", x.floor_ms, weight_bytes(c) / 1e9, g.bw_gbs);
    report_dispatch(DAY, DISPATCH[1]);

    /* ---- 1. The grid, untraced: the step as it runs -------------------------------------- */
    Result res[NCFG];
    int n = 0;
    for (int mi = 0; mi < NMODES; mi++)
        for (int bi = 0; bi < 2; bi++)
            for (int di = 0; di < 2; di++) {
                Result r = {"", MODES[mi], BATCHES[bi], DISPATCH[di]};
                snprintf(r.name, sizeof r.name, "%s_b%d_d%.0f", mode_name(r.mode), r.batch, r.dispatch_us);
                res[n++] = r;
            }
    /* beyond the week (day09's section 8): the whole step as one kernel, batch 1, bare C, where
     * this GPU and build run it */
    const char *no_persistent = gpu_mode_refusal(x.m, MODE_PERSISTENT, 1);
    if (!no_persistent) {
        res[n] = (Result){"persistent_b1_d0", MODE_PERSISTENT, 1, 0};
        n++;
    }
    uint64_t mark[STEPS + 1];
    for (int i = 0; i < n; i++) res[i].tpot_ms = run_steps(&x, &res[i], mark, &res[i].host_ms);
    Result sw[NSWEEP];                /* the sweep: eager, batch 1 */
    for (int i = 0; i < NSWEEP; i++) {
        sw[i] = (Result){"", MODE_EAGER, 1, SWEEP[i]};
        snprintf(sw[i].name, sizeof sw[i].name, "sweep_d%.0f", SWEEP[i]);
        sw[i].tpot_ms = run_steps(&x, &sw[i], mark, &sw[i].host_ms);
    }

    /* ---- 2. The kernel-only trace: GPU time, gaps; 3. the full trace: the CPU side ------- */
    int traced = trace_start_kernels(&tr) == 0;
    if (traced) {
        for (int i = 0; i < n; i++) light_pass(&x, &res[i]);
        for (int i = 0; i < NSWEEP; i++) light_pass(&x, &sw[i]);
        traced = trace_start(&tr) == 0;
    }
    if (traced) {
        char png_eager[4096], png_graph[4096];
        result_path(png_eager, sizeof png_eager, "timeline_", "eager", "png");
        result_path(png_graph, sizeof png_graph, "timeline_", "graph", "png");
        for (int i = 0; i < n; i++) {
            const Result *r = &res[i];
            int strip = r->batch == 1 && r->dispatch_us == DISPATCH[1] && (r->mode == MODE_EAGER || r->mode == MODE_GRAPH);
            full_pass(&x, &res[i], strip ? (r->mode == MODE_EAGER ? png_eager : png_graph) : NULL);
        }
        trace_stop();
    } else {
        printf("trace=off: no CUPTI trace; only TPOT can be measured (no busy ratio, gaps or files)\n");
    }
    /* the rows of every configuration; printed here for the four the lesson reads (eager and
     * graph_eager with the dispatcher, eager and graph without), all of them with --verbose:
     * the table below shows every one */
    for (int i = 0; i < n; i++) {
        const Result *r = &res[i];
        const int shown = r->batch == 1 && (r->dispatch_us ? r->mode == MODE_EAGER || r->mode == MODE_GRAPH_EAGER
                                                           : r->mode == MODE_EAGER || r->mode == MODE_GRAPH);
        rows_quiet(!verbose && !shown);
        report_config(r, x.floor_ms, traced);
    }
    rows_quiet(0);

    printf("\n== mode x batch x dispatch: TPOT untraced; GPU time and gaps from the kernel trace; host-bound and "
           "launches from the full trace ==\n");
    printf("%-20s %8s %8s %7s %8s %9s %10s %10s %11s %9s %9s\n", "config", "TPOT ms", "GPU ms", "busy %",
           "traced %", "gaps/step", "gap med us", "gap p90 us", "host-bound %", "launch us", "launches");
    for (int i = 0; i < n; i++) {
        const Result *r = &res[i];
        printf("%-20s %8.3f %8.3f %7.1f %8.1f %9.1f %10.2f %10.2f %11.1f %9.2f %9.1f\n", r->name, r->tpot_ms, r->gpu_ms,
               r->busy, r->busy_traced, r->gaps_per_step, r->gap_median_us, r->gap_p90_us, r->host_bound,
               r->launch_api_us, r->launches_per_step);
    }
    if (!traced) {
        gpu_model_free(x.m);
        return rows_exit_code();
    }

    /* ---- 4. What the tracers cost ------------------------------------------------------ */
    printf("\n== what the tracers cost (seed 004's second trap) ==\n");
    const Result *e0 = find(res, n, MODE_EAGER, 1, 0), *gr0 = find(res, n, MODE_GRAPH, 1, 0);
    const double launches = gpu_step_counts(x.m, MODE_EAGER).host_launches;
    const double per_launch = (e0->tpot_full_ms - e0->tpot_ms) * 1e3 / launches;
    const double per_launch_light = (e0->tpot_light_ms - e0->tpot_ms) * 1e3 / launches;
    const Result *pair[2] = {e0, gr0};
    for (const Result *r : pair) {
        char key[64];
        snprintf(key, sizeof key, "tracer_pct_full_%s", r->name);
        report(DAY, key, NAN, 100 * (r->tpot_full_ms / r->tpot_ms - 1), "%", "TPOT under the full trace / untraced - 1");
        snprintf(key, sizeof key, "tracer_pct_kernels_%s", r->name);
        report(DAY, key, NAN, 100 * (r->tpot_light_ms / r->tpot_ms - 1), "%", "TPOT under the kernel trace / untraced - 1");
    }
    report(DAY, "tracer_us_per_launch", NAN, per_launch, "us",
           "eager b1 d0: (TPOT under the full trace - untraced) / launches per step");
    printf("tracer_us_per_launch_kernels=%.2f (the kernel-only trace's cost per launch)\n", per_launch_light);
    printf("reading: under the full trace the eager step takes %.3f ms instead of %.3f: its timeline shows busy %.0f%%, "
           "the step as it runs is busy %.0f%%. Shares and structure from the trace, times from the timer (mistake "
           "#11).\n", e0->tpot_full_ms, e0->tpot_ms, e0->busy_traced, e0->busy);

    /* ---- 5. The dispatch sweep: where does the step turn overhead-bound? --------------- */
    printf("\n== dispatch sweep: eager, batch 1 ==\n");
    for (int i = 0; i < NSWEEP; i++) {
        char key[64], note[128];
        snprintf(note, sizeof note, "eager, batch 1, dispatch median %.0f us per launch, untraced", SWEEP[i]);
        snprintf(key, sizeof key, "sweep_tpot_ms_d%.0f", SWEEP[i]);
        report_floored(DAY, key, x.floor_ms, sw[i].tpot_ms, "ms", note);
        snprintf(key, sizeof key, "sweep_busy_d%.0f", SWEEP[i]);
        report(DAY, key, NAN, sw[i].busy, "%", note);
    }
    /* Predicted: the host needs launches x (the mean draw + its own cost per launch) per step;
     * the GPU needs its kernel time. They are equal at a mean draw of GPU time / launches - the
     * host's cost per launch (untraced: the time to hand a step over at dispatch 0 / launches),
     * and the sweep's axis is the median: that mean over the shape's mean / median. Measured:
     * the flat level TPOT(0) meets the line through the two largest dispatches. */
    const Result *r0 = &sw[0], *ra = &sw[NSWEEP - 2], *rb = &sw[NSWEEP - 1];
    const double launch_us = r0->host_ms * 1e3 / launches, mean_ratio = dispatch_mean(dispatch_shape());
    const double predicted = (r0->gpu_ms * 1e3 / launches - launch_us) / mean_ratio;
    printf("crossover_predicted_us=%.1f = (%.3f ms of kernels / %.0f launches - %.2f us of host time per launch "
           "(untraced)) / %.2f (the draws' mean over their median)\n", predicted, r0->gpu_ms, launches, launch_us,
           mean_ratio);
    const double slope = (rb->tpot_ms - ra->tpot_ms) / (rb->dispatch_us - ra->dispatch_us);   /* ms per us */
    printf("sweep_slope=%.4f ms per us of the median (%.0f launches per step x %.2f would give %.4f)\n", slope,
           launches, mean_ratio, launches * mean_ratio / 1e3);
    double measured = NAN;
    if (slope > 0.25 * launches * mean_ratio / 1e3) {
        measured = fmax(0, rb->dispatch_us - (rb->tpot_ms - r0->tpot_ms) / slope);
        printf("crossover_measured_us=%.1f (TPOT(0) = %.3f ms meets the rising line through d=%.0f and d=%.0f)\n",
               measured, r0->tpot_ms, ra->dispatch_us, rb->dispatch_us);
    } else {
        printf("crossover_measured: TPOT did not rise with dispatch up to %.0f us: the step stays GPU-bound\n",
               rb->dispatch_us);
    }
    if (predicted < 0) printf("the prediction is below 0: with no dispatch at all, the launches already take "
                              "longer than the kernels (overhead-bound at dispatch 0)\n");
    report(DAY, "crossover_us", predicted, measured, "us",
           "dispatch median at which launches x (mean draw + launch call) = GPU time per step");

    /* ---- 6. nvidia-smi's utilization: the lesson's first trap ---------------------------- */
    printf("\n== nvidia-smi's utilization against the busy ratio (mistake #13) ==\n");
    const Result *ehf = find(res, n, MODE_EAGER, 1, DISPATCH[1]);
    nvml_row(&x, ehf);
    nvml_row(&x, gr0);

    /* ---- 7. What the numbers say -------------------------------------------------------- */
    const Result *gehf = find(res, n, MODE_GRAPH_EAGER, 1, DISPATCH[1]), *ghf = find(res, n, MODE_GRAPH, 1, DISPATCH[1]);
    printf("\n== what a CUDA graph removes, and what it does not (dispatch median %.0f us, batch 1) ==\n", DISPATCH[1]);
    printf("eager -> graph_eager (the same %.0f kernels, one launch): TPOT %.3f -> %.3f ms, busy %.0f%% -> %.0f%%\n",
           gehf->kernels_per_step, ehf->tpot_ms, gehf->tpot_ms, ehf->busy, gehf->busy);
    printf("graph_eager -> graph (the kit's fused kernels, %.0f of them): TPOT %.3f -> %.3f ms, GPU time %.3f -> %.3f "
           "ms: what is left is the kernels' own time\n", ghf->kernels_per_step, gehf->tpot_ms, ghf->tpot_ms,
           gehf->gpu_ms, ghf->gpu_ms);

    printf("\n== beyond the week: one kernel per step (persistent, batch 1, bare C) ==\n");
    if (no_persistent) printf("persistent=not run (%s)\n", no_persistent);
    else {
        const Result *p = find(res, n, MODE_PERSISTENT, 1, 0);
        printf("persistent_b1_d0: kernels_per_step=%.0f gaps_per_step=%.1f busy_pct=%.1f gpu_ms=%.3f tpot_ms=%.3f "
               "(graph_b1_d0: %.0f kernels, %.1f gaps, busy %.1f%%, TPOT %.3f ms)\n", p->kernels_per_step, p->gaps_per_step,
               p->busy, p->gpu_ms, p->tpot_ms, gr0->kernels_per_step, gr0->gaps_per_step, gr0->busy, gr0->tpot_ms);
        printf("reading: one kernel a step leaves %.1f gaps a step on the GPU lane against graph's %.1f; what the step "
               "still waits for is inside the kernel, where a trace of kernels cannot see it (day09's section 8)\n",
               p->gaps_per_step, gr0->gaps_per_step);
    }

    printf("\n== batch 1 vs 32 (self-tests 4 and 6) ==\n");
    for (int di = 1; di >= 0; di--)
        for (int mi = 0; mi < NMODES; mi += 3) {   /* eager and graph */
            const Result *b1 = find(res, n, MODES[mi], 1, DISPATCH[di]), *b32 = find(res, n, MODES[mi], 32, DISPATCH[di]);
            printf("%-5s d%-2.0f: launch_api_us %.2f -> %.2f, gpu_ms %.3f -> %.3f, busy %.0f%% -> %.0f%%, "
                   "TPOT %.3f -> %.3f ms (x%.2f for 32x the tokens)\n", mode_name(MODES[mi]), DISPATCH[di],
                   b1->launch_api_us, b32->launch_api_us, b1->gpu_ms, b32->gpu_ms, b1->busy, b32->busy, b1->tpot_ms,
                   b32->tpot_ms, b32->tpot_ms / b1->tpot_ms);
        }
    printf("\n== acceptance question 5 (the lesson's regime: dispatch median %.0f us) ==\n", DISPATCH[1]);
    printf("gaps: eager batch 1 is busy %.0f%%; %.0f%% of its gap time the next launch call had not started: the GPU "
           "waits for the CPU\n", ehf->busy, ehf->host_bound);
    printf("cure 1, fewer launches: busy eager %.0f%% -> graph_eager %.0f%% -> graph %.0f%%\n", ehf->busy, gehf->busy,
           ghf->busy);
    const Result *ehf_b32 = find(res, n, MODE_EAGER, 32, DISPATCH[1]);
    printf("cure 2, more work per launch: eager batch 1 -> 32: GPU time %.3f -> %.3f ms per step, busy %.0f%% -> "
           "%.0f%%, %.1fx the tokens per second\n", ehf->gpu_ms, ehf_b32->gpu_ms, ehf->busy, ehf_b32->busy,
           32 * ehf->tpot_ms / ehf_b32->tpot_ms);
    printf("faster_gpu_2x: eager d%.0f GPU time %.3f -> %.3f ms per step, TPOT stays ~%.3f ms, busy %.0f%% -> ~%.0f%% "
           "(mistake #14)\n", DISPATCH[1], ehf->gpu_ms, ehf->gpu_ms / 2, ehf->tpot_ms, ehf->busy, ehf->busy / 2);

    trace_free(&tr);
    gpu_model_free(x.m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
