/* Day 11 · Is the GPU waiting for the CPU?
 *
 * Day 10 summed the kernels' GPU time. That sum is not the step's time: a kernel starts only
 * after the CPU has launched it, and when launching takes longer than running, the GPU lane of
 * the timeline fills with white: overhead-bound, the third bottleneck, made visible. Measured:
 *
 *   busy ratio   GPU time per step (kernel intervals merged, from a kernel-only trace) / TPOT
 *                of the same step untraced
 *   gaps         the idle stretches between kernels inside a step: count, median, p90
 *   host-bound   the share of gap time in which the next launch call had not even begun
 *
 * A tracer slows the host it watches (the Vietnamese lesson's second trap), so each step runs
 * untraced (TPOT), under kernel records only (GPU time, gaps) and under the full trace (the CPU
 * side, Perfetto files); busy never divides by a traced span, and the trap's size is a row
 * (tracer_pct_*, and busy_traced_*, the busy ratio the full trace's timeline shows).
 *
 * The grid: eager (PyTorch eager's 903 launches), graph_eager (the same kernels in one CUDA
 * graph), fused and graph (the kit's own kernels) x batch 1 and 32 x bare C launches (_d0) or
 * the emulated dispatcher (gpu/dispatch.h, waits drawn from a real PyTorch trace: _d14, its
 * default median in us). Then a dispatch sweep (eager, batch 1, medians set to 0 to 20 us),
 * nvidia-smi's utilization, and the timeline model (section 8, measure/replay.h): each step
 * replayed from its launches, each op's constants fitted on batch 1 (batch 32 held out:
 * replay_worst), then the same steps on a T4 and on faster GPUs.
 *
 * Build and run:   make day11   (or: bin/day11_gaps [--model DIR] [--dispatch-us N]
 *                                [--dispatch-from TRACE] [--verbose])
 * It prints the GPU in one line, the rows below in their order (eager's TPOT and host-bound share
 * beside its busy ratio, graph_eager's busy), the tracers' cost, the model's worst replay, its T4
 * forecast, mistake #14, persistent's line and acceptance question 5's answer; on stderr, a line
 * per pass and per configuration. --verbose adds every other row and line (each configuration's
 * rows, the tables, the sweep, the files); all the rows go to results/rows.tsv either way.
 *
 * What to expect on a T4: the lesson's figures (HF eager) and the model's forecast of the kit's
 * steps (`forecast_t4_*`, theory column); the H200's rows are in answers/reference/README.md.
 *   busy_eager_b1_d0     bare C launches hide under a T4's kernels: `forecast_t4_busy_eager_b1_d0`
 *                        94-97% (H200 runs)
 *   busy_eager_b1_d14    the lesson: 50-65%, about 14 ms of CPU a step against about 8 ms of GPU;
 *                        the kit's emulated HF step: `forecast_t4_busy_eager_b1_d14` 34-36%,
 *                        `forecast_t4_tpot_ms_eager_b1_d14` 26-27 ms (H200 runs)
 *   gap_median_us_*      the lesson: 10-40 us a gap
 *   batch 32             the same launches, longer kernels, busy up, TPOT flat (the lesson):
 *                        `forecast_t4_busy_eager_b32_d14` 41-44% (H200 runs)
 *   busy_graph_*         one launch a step: `forecast_t4_tpot_ms_graph_b1_d0` 9.8-9.9 ms (H200
 *                        runs); the lesson's reduce-overhead TPOT: close to 8 ms
 *   crossover_us         theory: (GPU time / launches - host time per launch) / the draws' mean
 *                        over their median; measured: where the sweep's rising line meets TPOT at
 *                        0 (at or below 0: TPOT rose from the first draw, overhead-bound with no
 *                        dispatcher); on a T4, whose kernels are longer, expect it above 0
 *   nvml_util_*          the lesson: 100% whenever a kernel ran in nvidia-smi's window; set each
 *                        beside its busy ratio (mistake #13)
 *   forecast_10x_*       the steps on a GPU assumed 10x faster: the overhead-bound step keeps
 *                        its time, the graph step follows the GPU (mistake #14)
 * It proves acceptance question 5 (the GPU waits for the CPU; the cures: fewer launches, graphs
 * and fusion, and more work per launch, batch), self-tests 4 (batch 32: the same CPU cost,
 * longer kernels, busy up, TPOT barely moves) and 6 (a flat TPOT over batch does not prove
 * memory-bound: the GPU lane decides), and mistakes #13 and #14.
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
#include "measure/replay.h"
#include "measure/trace.h"

#define DAY "day11"
enum { WARMUP = 3, STEPS = 5, PROMPT = 32, MAX_BATCH = 32, NSWEEP = 5, NMODES = 4, NCFG = 17, UTIL_MS = 1500 };
static const Mode MODES[NMODES] = {MODE_EAGER, MODE_GRAPH_EAGER, MODE_FUSED, MODE_GRAPH};
static const int BATCHES[] = {1, 32};
static const double SWEEP[NSWEEP] = {0, 5, 10, 14, 20};   /* medians, us: 14 the default, 20 a mean of 30 */
static double DISPATCH[2] = {0, NAN};   /* [1]: --dispatch-us, the median (NAN until parsed: not given) */
/* The answers the default prints, in the essay's order (--verbose: every row); d%s is the
 * dispatcher's median as the rows name it (14 unless --dispatch-us). */
static const char *const HEADLINES[] = {
    "busy_eager_b1_d0", "tpot_ms_eager_b1_d%s", "busy_eager_b1_d%s", "gap_median_us_eager_b1_d%s",
    "host_bound_eager_b1_d%s", "busy_eager_b32_d%s", "busy_graph_eager_b1_d%s", "tpot_ms_graph_b1_d0",
    "busy_graph_b1_d0", "crossover_us", "nvml_util_eager_b1_d%s", "nvml_util_graph_b1_d0", NULL};

typedef struct { double start, end; int cls; } LightK;   /* a kernel: its times (ns), its replay class */

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
    int gap_median_part;       /* the part whose launch the middle third of the gaps waited for most often (full
                                * trace; -1: none) */
    double tpot_light_ms, tpot_full_ms;                               /* under each tracer */
    double busy_traced, host_bound, launch_api_us, launches_per_step, kernels_per_step;   /* full trace */
    double launch_delay_us;  /* full trace: median from a launch call's end to its kernel's start */
    /* the timeline model's inputs (section 8), per timed step */
    double t0_ms[STEPS], host_end_us[STEPS];   /* untraced: the step's start, and its hand-over after it */
    OpRecord *rec[STEPS];                      /* untraced: its ops, their submit times and costs */
    int nrec[STEPS];
    LightK *lk[STEPS];                         /* kernel trace: its kernels in start order */
    int nlk[STEPS];
    ReplayStep rs[STEPS];    /* the step the model replays (rs[0].n == 0: not replayable, why_not says why) */
    double idle_us;          /* kernel trace: idle per boundary between two ops, median of the steps */
    int replayable;
    char why_not[160];
} Result;

typedef struct { GpuModel *m; Trace *tr; int ids[PROMPT]; double floor_ms; int rec_cap; } Ctx;

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
    "  --verbose         every row and line (each configuration's rows, the tables, the files), not only\n"
    "                    the answers\n";

static void result_path(char *out, size_t cap, const char *stem, const char *name, const char *ext) {
    snprintf(out, cap, "%s/%s%.40s.%s", results_dir(), stem, name, ext);
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
 * *host_ms, the median time until the host had launched it all. record (untraced): each
 * step's ops go to r->rec (the launch path's record: submit times and costs, section 8). */
static double run_steps(Ctx *x, Result *r, uint64_t *mark, double *host_ms, int record) {
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
        if (record) {
            if (!r->rec[i]) r->rec[i] = (OpRecord *)xmalloc(sizeof(OpRecord) * x->rec_cap);
            launch_record(r->rec[i], x->rec_cap);
        }
        double t = now_ms();
        gpu_decode_step(x->m, r->mode);
        host[i] = now_ms() - t;
        if (record) {
            r->t0_ms[i] = t, r->host_end_us[i] = 1e3 * host[i];
            if ((r->nrec[i] = launch_record_stop()) > x->rec_cap)
                die("day11: a %s step launched %d ops, more than the %d recorded (a bug in this program)", r->name,
                    r->nrec[i], x->rec_cap);
        }
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
static int by_start(const void *a, const void *b) {
    const double d = ((const LightK *)a)->start - ((const LightK *)b)->start;
    return (d > 0) - (d < 0);
}

static void light_pass(Ctx *x, Result *r) {
    uint64_t mark[STEPS + 1];
    r->tpot_light_ms = run_steps(x, r, mark, NULL, 0);
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
        /* the step's kernels in start order, with their replay class, for the model */
        r->lk[i] = (LightK *)realloc(r->lk[i], sizeof(LightK) * (x->tr->nk + 1));
        if (!r->lk[i]) die("day11: out of host memory");
        r->nlk[i] = 0;
        for (int k = 0; k < x->tr->nk; k++) {
            const TKernel *K = &x->tr->k[k];
            if (K->start >= mark[i] && K->start < mark[i + 1])
                r->lk[i][r->nlk[i]++] = (LightK){(double)K->start, (double)K->end, replay_class_of_kernel(K->name)};
        }
        qsort(r->lk[i], r->nlk[i], sizeof(LightK), by_start);
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
/* What a typical gap waits for: the part of the kernel that closes it (its launch path's tag,
 * which the full trace carries), most often among the gaps between the 33rd and the 67th
 * percentile; -1 when there are none. */
static int typical_gap_part(const TraceWindow *w) {
    int count[P_COUNT] = {0}, best = -1;
    const double p33 = percentile_of(w->gaps_ns, w->n_gaps, 33), p67 = percentile_of(w->gaps_ns, w->n_gaps, 67);
    for (int k = 0; k < w->n_gaps; k++)
        if (w->gaps_ns[k] >= p33 && w->gaps_ns[k] <= p67 && w->gap_part[k] >= 0 && w->gap_part[k] < P_COUNT)
            count[w->gap_part[k]]++;
    for (int p = 0; p < P_COUNT; p++)
        if (count[p] && (best < 0 || count[p] > count[best])) best = p;
    return best;
}

static void full_pass(Ctx *x, Result *r, const char *timeline) {
    uint64_t mark[STEPS + 1];
    r->tpot_full_ms = run_steps(x, r, mark, NULL, 0);
    TraceWindow w = trace_window(x->tr, mark[0], mark[STEPS], STEPS);
    r->busy_traced = 100 * w.busy_ratio;
    r->host_bound = 100 * w.host_bound_share;
    r->launch_api_us = w.launch_api_ns.median / 1e3;
    r->launch_delay_us = w.launch_delay_ns.median / 1e3;
    r->launches_per_step = w.launch_calls_per_step;
    r->kernels_per_step = w.kernels_per_step;
    r->gap_median_part = typical_gap_part(&w);
    trace_window_free(&w);
    char path[4096];
    result_path(path, sizeof path, "trace_", r->name, "json");
    if (trace_write_chrome(x->tr, mark[0], mark[STEPS], path) == 0) detail("trace_file=%s\n", path);
    if (timeline) {
        char title[160];
        snprintf(title, sizeof title, "one decode step, %s, batch %d, dispatch median %.0f us: %.0f launch calls, %.0f kernels "
                 "(under the full tracer)", mode_name(r->mode), r->batch, r->dispatch_us, r->launches_per_step,
                 r->kernels_per_step);
        Chart c = {};
        c.title = title;
        c.xlabel = "us from the start of the step";
        c.width = 1600;
        if (chart_timeline(&c, timeline, x->tr, mark[STEPS / 2], mark[STEPS / 2 + 1]) == 0)
            detail("timeline_file=%s\n", timeline);
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
        if (!strcmp(items[i].stem, "gap_median_us_") && r->gap_median_part >= 0)
            snprintf(note + strlen(note), sizeof note - strlen(note), "; the typical gap waits for the launch of: %s",
                     part_name((Part)r->gap_median_part));
        report(DAY, key, NAN, items[i].v, items[i].unit, note);
    }
}

static const Result *find(const Result *res, int n, Mode mode, int batch, double d) {
    for (int i = 0; i < n; i++)
        if (res[i].mode == mode && res[i].batch == batch && res[i].dispatch_us == d) return &res[i];
    die("day11: no result for %s batch %d dispatch %.0f (a bug in this program)", mode_name(mode), batch, d);
}

/* ---- the timeline model's steps (section 8) ---------------------------------------------- */

/* The step the model replays (measure/replay.h), for each timed step: each op's submit time
 * and cost from the untraced run's record, its class and GPU time from the kernel trace (cuBLAS's
 * split-K reduce counted in its GEMM's op; each op charged from the later of its first kernel's
 * start and the op before's end, so PDL's overlap is not counted twice). A graph's ops are its
 * twin's (graph_eager: eager's, graph: fused's: the same launches, captured), all submitted with
 * the graph launch. Sets r->replayable, or r->why_not. */
static void replay_build(Result *r, const Result *twin, int graph, int pdl) {
    double idle[STEPS];
    for (int i = 0; i < STEPS; i++) {
        const OpRecord *op = twin->rec[i];
        const int nops = twin->nrec[i];
        int groups = 0;
        for (int j = 0; j < r->nlk[i]; j++) groups += r->lk[i][j].cls != OC_GEMM_REDUCE || groups == 0;
        if (graph && r->nrec[i] != 1) {
            snprintf(r->why_not, sizeof r->why_not, "a graph step launched %d ops, not one", r->nrec[i]);
            return;
        }
        if (groups != nops) {
            snprintf(r->why_not, sizeof r->why_not, "step %d: %d kernels (%d ops) in the kernel trace against %d ops "
                     "launched", i, r->nlk[i], groups, nops);
            return;
        }
        for (int k = 0; k < nops; k++)
            if (!isfinite(op[k].bytes)) {
                snprintf(r->why_not, sizeof r->why_not, "op %s was launched without a cost (gpu/launch.h's op_cost)", op[k].op);
                return;
            }
        ReplayOp *o = (ReplayOp *)xcalloc(nops ? nops : 1, sizeof(ReplayOp));
        ReplayStep st = {"", graph, pdl, r->host_end_us[i], r->tpot_ms, r->busy, nops, o};
        snprintf(st.name, sizeof st.name, "%.39s", r->name);
        free(r->rs[i].ops);
        r->rs[i] = st;
        double prev_end = 0, g_start = 0, g_end = 0, idle_ns = 0;
        for (int j = 0, k = -1; j <= r->nlk[i]; j++) {
            const LightK *K = j < r->nlk[i] ? &r->lk[i][j] : NULL;
            if (K && K->cls == OC_GEMM_REDUCE && k >= 0) {
                g_end = fmax(g_end, K->end);
                continue;
            }
            if (k >= 0) {   /* op k is complete */
                o[k].dur_us = fmax(0, g_end - fmax(g_start, prev_end)) / 1e3;
                if (k > 0) idle_ns += fmax(0, g_start - prev_end);
                prev_end = fmax(prev_end, g_end);
            }
            if (!K) break;
            k++;
            o[k].cls = K->cls, g_start = K->start, g_end = K->end;
            o[k].bytes = op[k].bytes, o[k].flops = op[k].flops;
            o[k].submit_us = 1e3 * ((graph ? r->rec[i][0].t_ms : op[k].t_ms) - r->t0_ms[i]);
        }
        idle[i] = nops > 1 ? idle_ns / 1e3 / (nops - 1) : 0;
    }
    r->idle_us = median_of(idle, STEPS);
    r->replayable = 1;
}

/* A configuration's steps replayed on gpu: the medians over its timed steps; *which, the step
 * whose TPOT is nearest that median. */
static ReplayResult replay_median(const Result *r, const ReplayGpu *gpu, const ReplayFit *fit, double c_scale,
                                  int *which) {
    double t[STEPS], gm[STEPS], b[STEPS], gap[STEPS];
    for (int i = 0; i < STEPS; i++) {
        const ReplayResult q = replay_step(&r->rs[i], gpu, fit, c_scale);
        t[i] = q.tpot_ms, gm[i] = q.gpu_ms, b[i] = q.busy_pct, gap[i] = q.gap_median_us;
    }
    ReplayResult m = {median_of(t, STEPS), median_of(gm, STEPS), median_of(b, STEPS), median_of(gap, STEPS), 0, 0};
    if (which) {
        *which = 0;
        for (int i = 1; i < STEPS; i++)
            if (fabs(t[i] - m.tpot_ms) < fabs(t[*which] - m.tpot_ms)) *which = i;
    }
    return m;
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
                             ARG_VERBOSE(&verbose), {0}};
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
    enum { NHEAD = sizeof HEADLINES / sizeof HEADLINES[0] };
    static char head_key[NHEAD][64];
    static const char *head[NHEAD];            /* HEADLINES, d%s named: NULL-ended as they are */
    for (int i = 0; HEADLINES[i]; i++) {
        snprintf(head_key[i], sizeof head_key[i], HEADLINES[i], d_name);
        head[i] = head_key[i];
    }
    rows_quiet(!verbose);
    rows_headlines(head);
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_facts_print(&g, verbose);
    mkdir(results_dir(), 0755);   /* the gap lists come before the first row, which would make it */

    Trace tr = {0};
    Ctx x = {NULL, &tr, {0}, 0, 0};
    trace_bind_nvtx();            /* the traces later show each op's name on the CPU track */
    GpuModelOpts mo = {.model_dir = model_dir, .seed = 1, .max_batch = MAX_BATCH, .max_seq = PROMPT + 128, .quiet = 1};
    x.m = gpu_model_open(&mo);
    const Config *c = gpu_model_config(x.m);
    x.rec_cap = eager_ops_per_pass(c->n_layers) + 64;   /* the longest step, and room */
    if (verbose) config_print(c);
    if (!model_dir)
        detail("weights=synthetic (TinyLlama's shape, seeded): every kernel, gap and time is real, the text is not\n");
    prompt_ids(model_dir, c, PROMPT, x.ids);
    x.floor_ms = floor_tpot_ms(weight_bytes(c), g.bw_gbs);
    detail("floor_tpot_ms=%.3f (%.2f GB of weights / %.0f GB/s)\n", x.floor_ms, weight_bytes(c) / 1e9, g.bw_gbs);
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
    /* on stderr: a line per pass over the grid, and one per configuration in the last pass,
     * which writes its files; then the utilization and the model */
    const int phases = n + 4;
    char what[96];
    snprintf(what, sizeof what, "untraced: %d configurations and the dispatch sweep", n);
    progress(1, phases, what);
    uint64_t mark[STEPS + 1];
    for (int i = 0; i < n; i++) res[i].tpot_ms = run_steps(&x, &res[i], mark, &res[i].host_ms, 1);
    Result sw[NSWEEP];                /* the sweep: eager, batch 1 */
    for (int i = 0; i < NSWEEP; i++) {
        sw[i] = (Result){"", MODE_EAGER, 1, SWEEP[i]};
        snprintf(sw[i].name, sizeof sw[i].name, "sweep_d%.0f", SWEEP[i]);
        sw[i].tpot_ms = run_steps(&x, &sw[i], mark, &sw[i].host_ms, 0);
    }

    /* ---- 2. The kernel-only trace: GPU time, gaps; 3. the full trace: the CPU side ------- */
    int traced = trace_start_kernels(&tr) == 0;
    if (traced) {
        snprintf(what, sizeof what, "kernel trace: %d configurations and the dispatch sweep", n);
        progress(2, phases, what);
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
            snprintf(what, sizeof what, "full trace: %.40s", r->name);
            progress(3 + i, phases, what);
            full_pass(&x, &res[i], strip ? (r->mode == MODE_EAGER ? png_eager : png_graph) : NULL);
        }
        trace_stop();
    } else {
        printf("trace=off: no CUPTI trace; only TPOT can be measured (no busy ratio, gaps or files)\n");
    }
    /* the rows of every configuration (the default prints the headlines among them); the
     * table shows every one, by default too when there is no trace: TPOT is all there is */
    for (int i = 0; i < n; i++) report_config(&res[i], x.floor_ms, traced);
    if (verbose || !traced) {
        printf("\n== mode x batch x dispatch: TPOT untraced; GPU time and gaps from the kernel trace; host-bound and "
               "launches from the full trace ==\n");
        printf("%-20s %8s %8s %7s %8s %9s %10s %10s %11s %9s %9s\n", "config", "TPOT ms", "GPU ms", "busy %",
               "traced %", "gaps/step", "gap med us", "gap p90 us", "host-bound %", "launch us", "launches");
        for (int i = 0; i < n; i++) {
            const Result *r = &res[i];
            printf("%-20s %8.3f %8.3f %7.1f %8.1f %9.1f %10.2f %10.2f %11.1f %9.2f %9.1f\n", r->name, r->tpot_ms,
                   r->gpu_ms, r->busy, r->busy_traced, r->gaps_per_step, r->gap_median_us, r->gap_p90_us, r->host_bound,
                   r->launch_api_us, r->launches_per_step);
        }
    }
    if (!traced) {
        gpu_model_free(x.m);
        return rows_exit_code();
    }

    /* ---- 4. What the tracers cost ------------------------------------------------------ */
    detail("\n== what the tracers cost (seed 004's second trap) ==\n");
    const Result *e0 = find(res, n, MODE_EAGER, 1, 0), *gr0 = find(res, n, MODE_GRAPH, 1, 0);
    const double launches = gpu_step_counts(x.m, MODE_EAGER).host_launches;
    const double per_launch = (e0->tpot_full_ms - e0->tpot_ms) * 1e3 / launches;
    const double per_launch_light = (e0->tpot_light_ms - e0->tpot_ms) * 1e3 / launches;
    const Result *pair[3] = {e0, find(res, n, MODE_EAGER, 1, DISPATCH[1]), gr0};
    for (const Result *r : pair) {
        char key[64];
        snprintf(key, sizeof key, "tracer_pct_full_%s", r->name);
        report(DAY, key, NAN, 100 * (r->tpot_full_ms / r->tpot_ms - 1), "%", "TPOT under the full trace / untraced - 1");
        snprintf(key, sizeof key, "tracer_pct_kernels_%s", r->name);
        report(DAY, key, NAN, 100 * (r->tpot_light_ms / r->tpot_ms - 1), "%", "TPOT under the kernel trace / untraced - 1");
    }
    report(DAY, "tracer_us_per_launch", NAN, per_launch, "us",
           "eager b1 d0: (TPOT under the full trace - untraced) / launches per step");
    detail("tracer_us_per_launch_kernels=%.2f (the kernel-only trace's cost per launch)\n", per_launch_light);
    printf("reading: under the full trace the eager step takes %.3f ms instead of %.3f: its timeline shows busy %.0f%%, "
           "the step as it runs is busy %.0f%%. Shares and structure from the trace, times from the timer (mistake "
           "#11).\n", e0->tpot_full_ms, e0->tpot_ms, e0->busy_traced, e0->busy);

    /* ---- 5. The dispatch sweep: where does the step turn overhead-bound? --------------- */
    detail("\n== dispatch sweep: eager, batch 1 ==\n");
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
    detail("crossover_predicted_us=%.1f = (%.3f ms of kernels / %.0f launches - %.2f us of host time per launch "
           "(untraced)) / %.2f (the draws' mean over their median)\n", predicted, r0->gpu_ms, launches, launch_us,
           mean_ratio);
    const double slope = (rb->tpot_ms - ra->tpot_ms) / (rb->dispatch_us - ra->dispatch_us);   /* ms per us */
    detail("sweep_slope=%.4f ms per us of the median (%.0f launches per step x %.2f would give %.4f)\n", slope,
           launches, mean_ratio, launches * mean_ratio / 1e3);
    double measured = NAN;
    if (slope > 0.25 * launches * mean_ratio / 1e3) {
        measured = rb->dispatch_us - (rb->tpot_ms - r0->tpot_ms) / slope;
        detail("crossover_measured_us=%.1f (TPOT(0) = %.3f ms meets the rising line through d=%.0f and d=%.0f%s)\n",
               measured, r0->tpot_ms, ra->dispatch_us, rb->dispatch_us,
               measured <= 0 ? "; at or below 0: TPOT rose from the first draw, overhead-bound with no dispatcher" : "");
    } else {
        printf("crossover_measured: TPOT did not rise with dispatch up to %.0f us: the step stays GPU-bound\n",
               rb->dispatch_us);
    }
    if (predicted < 0) detail("the prediction is below 0: with no dispatch at all, the launches already take "
                              "longer than the kernels (overhead-bound at dispatch 0)\n");
    report(DAY, "crossover_us", predicted, measured, "us",
           "dispatch median at which launches x (mean draw + launch call) = GPU time per step");

    /* ---- 6. nvidia-smi's utilization: the lesson's first trap ---------------------------- */
    progress(n + 3, phases, "nvidia-smi's utilization");
    detail("\n== nvidia-smi's utilization against the busy ratio (mistake #13) ==\n");
    const Result *ehf = find(res, n, MODE_EAGER, 1, DISPATCH[1]);
    nvml_row(&x, ehf);
    nvml_row(&x, gr0);

    /* ---- 8. The timeline model: the steps replayed here, on a T4, on faster GPUs --------- */
    progress(n + 4, phases, "the timeline model");
    detail("\n== the timeline model: every step replayed from its launches (measure/replay.h) ==\n");
    const int pdl = gpu_model_pdl(x.m);
    for (int i = 0; i < n; i++) {
        Result *r = &res[i];
        if (r->mode == MODE_PERSISTENT) continue;
        const int graph = r->mode == MODE_GRAPH || r->mode == MODE_GRAPH_EAGER;
        const Mode base = r->mode == MODE_GRAPH ? MODE_FUSED : r->mode == MODE_GRAPH_EAGER ? MODE_EAGER : r->mode;
        replay_build(r, graph ? find(res, n, base, r->batch, 0) : r, graph, pdl && base == MODE_FUSED);
        if (!r->replayable) printf("replay_%s=not replayable (%s)\n", r->name, r->why_not);
    }
    /* The fit: e and c per class from batch 1's ops (batch 32 is held out: the replay must
     * reproduce what it did not see), against the bandwidth a device-to-device copy reaches,
     * measured here as on the T4 (a datasheet's figure is not what any kernel sees); the
     * latency from the full trace; the graph gaps start at the kernel trace's and replay_fit
     * takes them, and the synchronize's cost, from the untraced TPOT. */
    ReplayGpu here = {"", gpu_measure_copy(&g, (size_t)1 << 30), g.fp16_tflops, pdl};
    const char *short_name = strncmp(g.name, "NVIDIA ", 7) ? g.name : g.name + 7;   /* "H200" */
    for (int i = 0; short_name[i] && i < (int)sizeof here.name - 1; i++)
        here.name[i] = short_name[i] == ' ' || short_name[i] == '\t' ? '_' : short_name[i];
    ReplayFit fit = {};
    fit.latency_us = ehf->launch_api_us + ehf->launch_delay_us;
    fit.gap_us = find(res, n, MODE_GRAPH_EAGER, 1, 0)->idle_us;
    fit.gap_pdl_us = pdl ? gr0->idle_us : fit.gap_us;
    ReplayStep fitset[NCFG * STEPS];
    int nfit = 0;
    for (int i = 0; i < n; i++)
        if (res[i].replayable && res[i].batch == 1)
            for (int k = 0; k < STEPS; k++) fitset[nfit++] = res[i].rs[k];
    char err[200];
    if (!ehf->replayable || !gr0->replayable || replay_fit(fitset, nfit, &here, &fit, err, sizeof err) != 0) {
        printf("replay=not fitted (%s)\n", ehf->replayable && gr0->replayable ? err : "eager or graph not replayable");
    } else {
        /* f, which batch 1 cannot show (its GEMVs' FLOPs take a fraction of their bytes' time):
         * the kit's GEMV timed alone at 32 rows, less the gap between two launches */
        double gb, gf;
        const double gus = gpu_model_time_gemv(x.m, 32, &gb, &gf);
        const double f = replay_fit_f(&fit, &here, RC_GEMV, gb, gf, gus - fit.gap_us);
        detail("fit: on batch 1's %d steps (%d configurations x %d), every op's time = max(bytes / (%.0f GB/s, a "
               "copy's, x e), FLOPs / (%.0f TFLOP/s x f)) + c\n", nfit, nfit / STEPS, STEPS, here.bw_gbs, here.tflops);
        if (isfinite(f))
            detail("f: the kit's gate/up GEMV alone at 32 rows (%d launches back to back, not a step) took %.1f us a "
                   "launch, %.1f more than its bytes: its FLOPs ran at f = %.3f of the peak; the other classes keep "
                   "%.1f assumed (no decode op of theirs is compute-bound)\n", gpu_model_config(x.m)->n_layers, gus,
                   gus - fit.c_us[RC_GEMV] - gb / (here.bw_gbs * 1e3 * fit.e[RC_GEMV]), f, REPLAY_F_ASSUMED);
        else
            detail("f: the kit's gate/up GEMV alone at 32 rows took %.1f us a launch, within its bytes' time: its "
                   "FLOPs do not show; every class keeps f = %.1f assumed\n", gus, REPLAY_F_ASSUMED);
        report(DAY, "replay_f_gemv", NAN, fit.f[RC_GEMV], "",
               isfinite(f) ? "the kit's GEMV alone at 32 rows: its FLOPs / (peak x (time - c)); a calibration, not a step"
                           : "assumed: the GEMV alone at 32 rows took no longer than its bytes");
        for (int k = 0; k < RC_COUNT; k++) {
            if (!fit.n[k]) continue;
            char key[64], note[200];
            snprintf(note, sizeof note, "fitted on %d ops of batch 1%s", fit.n[k],
                     fit.e_pooled[k] ? "; e pooled: its ops are too small to show the bandwidth" : "");
            snprintf(key, sizeof key, "replay_e_%s", replay_class_name(k));
            report(DAY, key, NAN, fit.e[k], "", note);
            snprintf(key, sizeof key, "replay_c_us_%s", replay_class_name(k));
            report(DAY, key, NAN, fit.c_us[k], "us", note);
        }
        report(DAY, "replay_latency_us", NAN, fit.latency_us, "us",
               "eager b1 d14 (full trace): median launch call + median call end -> kernel start");
        report(DAY, "replay_gap_us", NAN, fit.gap_us, "us",
               "between two graph nodes without PDL: the graph steps' untraced TPOT less their kernels, per boundary");
        report(DAY, "replay_gap_pdl_us", NAN, fit.gap_pdl_us, "us",
               pdl ? "the same under PDL (the fused graph steps)" : "no PDL here: the gap without it");
        report(DAY, "replay_sync_us", NAN, fit.sync_us, "us",
               "fitted: the median of measured - replayed TPOT, batch 1's steps that are not graphs");

        detail("%-20s %9s %9s %7s %7s %7s %9s %7s\n", "config", "TPOT ms", "replayed", "off %", "busy %", "replay",
               "T4 ms", "T4 busy");
        double worst_t = 0, worst_b = 0;
        const char *wt = "", *wb = "";
        ReplayStep saved[NCFG];
        int nsaved = 0;
        for (int i = 0; i < n; i++) {
            const Result *r = &res[i];
            if (!r->replayable) continue;
            int which;
            const ReplayResult q = replay_median(r, &here, &fit, 1, &which), t4 = replay_median(r, &REPLAY_T4, &fit, 1, NULL);
            saved[nsaved++] = r->rs[which];
            const double off = 100 * (q.tpot_ms / r->tpot_ms - 1), db = q.busy_pct - r->busy;
            if (fabs(off) > fabs(worst_t)) worst_t = off, wt = r->name;
            if (fabs(db) > fabs(worst_b)) worst_b = db, wb = r->name;
            detail("%-20s %9.3f %9.3f %+7.1f %7.1f %7.1f %9.3f %7.1f\n", r->name, r->tpot_ms, q.tpot_ms, off, r->busy,
                   q.busy_pct, t4.tpot_ms, t4.busy_pct);
            char key[64], note[200];
            snprintf(note, sizeof note, "%.40s: the step replayed on this GPU (theory) against the untraced TPOT (measured)%s",
                     r->name, r->batch == 1 ? "" : "; batch 32 was not in the fit");
            snprintf(key, sizeof key, "replay_tpot_ms_%.40s", r->name);
            report(DAY, key, q.tpot_ms, r->tpot_ms, "ms", note);
            snprintf(key, sizeof key, "replay_busy_%.40s", r->name);
            report(DAY, key, q.busy_pct, r->busy, "%", note);
            snprintf(note, sizeof note, "%.40s on a T4 (a %.0f GB/s copy, %.0f TFLOP/s, no PDL) with this GPU's e, f, c and "
                     "host: the kit's model, not measured%s", r->name, REPLAY_T4.bw_gbs, REPLAY_T4.tflops,
                     fabs(off) > 10 ? "; replayed here >10% off: read with care" : "");
            snprintf(key, sizeof key, "forecast_t4_tpot_ms_%.40s", r->name);
            report(DAY, key, t4.tpot_ms, NAN, "ms", note);
            snprintf(key, sizeof key, "forecast_t4_busy_%.40s", r->name);
            report(DAY, key, t4.busy_pct, NAN, "%", note);
            snprintf(key, sizeof key, "forecast_t4_gpu_ms_per_step_%.30s", r->name);
            report(DAY, key, t4.gpu_ms, NAN, "ms", note);
        }
        printf("replay_worst: TPOT off by %+.1f%% at most (%s), busy by %+.1f points (%s); batch 32 was held out of "
               "the fit\n", worst_t, wt, worst_b, wb);
        /* the T4's unknowns: c (a T4 clocks lower than this GPU; its small kernels take longer); each
         * line is written whole, after its rows (which --verbose prints) */
        const Result *pick[2] = {ehf, gr0};
        const int SPEEDUPS[2] = {2, 10};
        char line[512];
        int len = snprintf(line, sizeof line, "T4 sensitivity (c halved / as fitted / doubled):");
        for (const Result *r : pick) {
            double v[3];
            const double cs[3] = {0.5, 1, 2};
            for (int k = 0; k < 3; k++) v[k] = replay_median(r, &REPLAY_T4, &fit, cs[k], NULL).tpot_ms;
            len += snprintf(line + len, sizeof line - len, " %s %.2f / %.2f / %.2f ms;", r->name, v[0], v[1], v[2]);
            char key[64];
            snprintf(key, sizeof key, "forecast_t4_c_half_tpot_ms_%.30s", r->name);
            report(DAY, key, v[0], NAN, "ms", "T4 forecast with each op's fixed cost c halved");
            snprintf(key, sizeof key, "forecast_t4_c_double_tpot_ms_%.30s", r->name);
            report(DAY, key, v[2], NAN, "ms", "T4 forecast with each op's fixed cost c doubled");
        }
        printf("%s\n", line);
        detail("T4: e is a fraction of a copy's bandwidth (here %.0f GB/s), carried to a Colab T4's copy, %.0f GB/s "
               "(its datasheet: %.0f): its GEMMs would read %.0f GB/s\n", here.bw_gbs, REPLAY_T4.bw_gbs,
               REPLAY_T4_DATASHEET_GBS, REPLAY_T4.bw_gbs * fit.e[OC_GEMM]);

        /* mistake #14: a faster GPU shortens the kernels, not the host's launches */
        detail("\n== mistake #14: the same steps on a GPU 2x and 10x faster (bandwidth, peak and each op's fixed cost; "
               "the same host) ==\n");
        for (const Result *r : pick) {
            const ReplayResult q1 = replay_median(r, &here, &fit, 1, NULL);
            len = snprintf(line, sizeof line, "%-16s here %.3f ms (busy %.0f%%)", r->name, q1.tpot_ms, q1.busy_pct);
            for (int k : SPEEDUPS) {
                const ReplayGpu fast = replay_faster(&here, k);
                const ReplayResult q = replay_median(r, &fast, &fit, 1.0 / k, NULL);
                len += snprintf(line + len, sizeof line - len, ", %dx: %.3f ms (x%.2f, busy %.0f%%)", k, q.tpot_ms,
                                q1.tpot_ms / q.tpot_ms, q.busy_pct);
                char key[64], note[160];
                snprintf(note, sizeof note, "%s replayed on a GPU %dx faster than this one (same host): the model", r->name, k);
                snprintf(key, sizeof key, "forecast_%dx_tpot_ms_%.30s", k, r->name);
                report(DAY, key, q.tpot_ms, NAN, "ms", note);
                snprintf(key, sizeof key, "forecast_%dx_busy_%.30s", k, r->name);
                report(DAY, key, q.busy_pct, NAN, "%", note);
            }
            printf("%s\n", line);
        }
        printf("reading: the overhead-bound step keeps its host's launches whatever the GPU; the graph step follows "
               "the GPU (mistake #14)\n");
        char path[4096];
        snprintf(path, sizeof path, "%s/replay.tsv", results_dir());
        if (replay_write(path, &here, &fit, saved, nsaved, err, sizeof err) != 0) printf("replay_file=not written (%s)\n", err);
        else detail("replay_file=%s (bin/forecast replays it on other GPUs)\n", path);
    }

    /* ---- 7. What the numbers say -------------------------------------------------------- */
    const Result *gehf = find(res, n, MODE_GRAPH_EAGER, 1, DISPATCH[1]), *ghf = find(res, n, MODE_GRAPH, 1, DISPATCH[1]);
    detail("\n== what a CUDA graph removes, and what it does not (dispatch median %.0f us, batch 1) ==\n", DISPATCH[1]);
    detail("eager -> graph_eager (the same %.0f kernels, one launch): TPOT %.3f -> %.3f ms, busy %.0f%% -> %.0f%%\n",
           gehf->kernels_per_step, ehf->tpot_ms, gehf->tpot_ms, ehf->busy, gehf->busy);
    detail("graph_eager -> graph (the kit's fused kernels, %.0f of them): TPOT %.3f -> %.3f ms, GPU time %.3f -> %.3f "
           "ms: what is left is the kernels' own time\n", ghf->kernels_per_step, gehf->tpot_ms, ghf->tpot_ms,
           gehf->gpu_ms, ghf->gpu_ms);

    detail("\n== beyond the week: one kernel per step (persistent, batch 1, bare C) ==\n");
    if (no_persistent) printf("persistent=not run (%s)\n", no_persistent);
    else {
        const Result *p = find(res, n, MODE_PERSISTENT, 1, 0);
        printf("persistent_b1_d0: kernels_per_step=%.0f gaps_per_step=%.1f busy_pct=%.1f gpu_ms=%.3f tpot_ms=%.3f "
               "(graph_b1_d0: %.0f kernels, %.1f gaps, busy %.1f%%, TPOT %.3f ms)\n", p->kernels_per_step, p->gaps_per_step,
               p->busy, p->gpu_ms, p->tpot_ms, gr0->kernels_per_step, gr0->gaps_per_step, gr0->busy, gr0->tpot_ms);
        detail("reading: one kernel a step leaves %.1f gaps a step on the GPU lane against graph's %.1f; what the step "
               "still waits for is inside the kernel, where a trace of kernels cannot see it (day09's section 8)\n",
               p->gaps_per_step, gr0->gaps_per_step);
    }

    detail("\n== batch 1 vs 32 (self-tests 4 and 6) ==\n");
    for (int di = 1; di >= 0; di--)
        for (int mi = 0; mi < NMODES; mi += 3) {   /* eager and graph */
            const Result *b1 = find(res, n, MODES[mi], 1, DISPATCH[di]), *b32 = find(res, n, MODES[mi], 32, DISPATCH[di]);
            detail("%-5s d%-2.0f: launch_api_us %.2f -> %.2f, gpu_ms %.3f -> %.3f, busy %.0f%% -> %.0f%%, "
                   "TPOT %.3f -> %.3f ms (x%.2f for 32x the tokens)\n", mode_name(MODES[mi]), DISPATCH[di],
                   b1->launch_api_us, b32->launch_api_us, b1->gpu_ms, b32->gpu_ms, b1->busy, b32->busy, b1->tpot_ms,
                   b32->tpot_ms, b32->tpot_ms / b1->tpot_ms);
        }
    detail("\n");
    printf("== acceptance question 5 (the lesson's regime: dispatch median %.0f us) ==\n", DISPATCH[1]);
    printf("gaps: eager batch 1 is busy %.0f%%; %.0f%% of its gap time the next launch call had not started: the GPU "
           "waits for the CPU\n", ehf->busy, ehf->host_bound);
    printf("cure 1, fewer launches: busy eager %.0f%% -> graph_eager %.0f%% -> graph %.0f%%\n", ehf->busy, gehf->busy,
           ghf->busy);
    const Result *ehf_b32 = find(res, n, MODE_EAGER, 32, DISPATCH[1]);
    printf("cure 2, more work per launch: eager batch 1 -> 32: GPU time %.3f -> %.3f ms per step, busy %.0f%% -> "
           "%.0f%%, %.1fx the tokens per second\n", ehf->gpu_ms, ehf_b32->gpu_ms, ehf->busy, ehf_b32->busy,
           32 * ehf->tpot_ms / ehf_b32->tpot_ms);

    for (int i = 0; i < n; i++)
        for (int k = 0; k < STEPS; k++) free(res[i].rec[k]), free(res[i].lk[k]), free(res[i].rs[k].ops);
    for (int i = 0; i < NSWEEP; i++)
        for (int k = 0; k < STEPS; k++) free(sw[i].lk[k]);
    trace_free(&tr);
    gpu_model_free(x.m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
