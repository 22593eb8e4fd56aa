/* Day 12 · The week on one page: theory against measurement.
 *
 * The question. Week 1 ended with a sheet of paper: weight bytes / bandwidth = the decode
 * floor, and every other number derived from it. Days 07-11 put that paper next to a real
 * GPU, one row at a time, into results/rows.tsv. Today nothing new is measured. This
 * program reads those rows and writes the lesson's deliverable, the one-page comparison
 * table, in the lesson's own order ("一页对比报告模板"): item · theory for THIS GPU · what
 * the lesson expected on a T4 under Hugging Face eager · the kit's T4 forecast · measured ·
 * the difference and why.
 * The "why" is computed from the other rows wherever they can explain it (a ratio placed
 * in the lesson's bands, a busy ratio before and after CUDA graphs), never typed in.
 *
 * Below the table: the charts (PNG, written beside the report, linked relatively so the
 * report can be copied anywhere with them), and the five-step profiling loop of the
 * Vietnamese lesson written as an experiment log: eager -> graph_eager -> graph -> int8
 * weights, unfused and then fused (day09's section 7). Each step one change, re-measured,
 * logged. After it, beyond the week, a paragraph on persistent mode (day09's section 8): the
 * whole step in one kernel, its TPOT and ratio beside graph's and what it removed, or why it
 * did not run.
 *
 * Build and run:   make day12        (or: bin/day12_report after the days ran)
 * Reads:           results/rows.tsv (with the rows of tools/torch_decode.py, through
 *                  bin/trace_stats --rows: a section on your own PyTorch run, beside the kit's),
 *                  results/gaps_<cfg>.tsv, results/timeline_*.png
 * Writes:          results/REPORT.md and its PNG charts  ($KIT_RESULTS moves "results"); the
 *                  report's first lines name the kit version (KIT_VERSION, built in by the
 *                  Makefile from tools/version.sh: the commit, or kit.tar.gz's VERSION)
 * Expect:          one line per file written; a day that has not run shows up in the
 *                  report as "not run (make dayNN)", never as a blank or a zero, and a
 *                  measurement that is not a finite number as "invalid (inf)", never banded.
 * (main.c calls report_write; the fuzz target tests/fuzz/day12.c calls it too.)
 *
 * What to expect on a T4: the theory column is the lesson's own arithmetic (2.2 GB / 320 GB/s =
 * 6.9 ms a step), the lesson's column sits beside your measurement, and the forecast column is
 * day11's timeline model as the reference run made it (answers/reference/rows.tsv, the H200's
 * steps replayed on a T4: for the emulated HF eager step `forecast_t4_tpot_ms_eager_b1_d14`
 * 25.7-26.9 ms (H200 runs)), so your measured column checks the model. What the report said on
 * the H200 is in answers/reference/README.md ("day12").
 *
 * Quiz: the report is where all five acceptance questions meet; answers/README.md cites
 * its rows, and `make check-answers` checks the claims behind them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "gpu/dispatch.h"
#include "report/chart.h"
#include "model/eager_ops.h"
#include "parts.h"
#include "report.h"
#include "report/rows.h"
#include "util.h"

static Row *rows;
static int nrows;
#define REFERENCE_ROWS "answers/reference/rows.tsv"   /* the kit's reference run, from the repository root */
static FILE *out;
static char dir[4096];          /* where REPORT.md and the PNGs go */

/* A row that was measured, as a finite number, or NULL; its value, or NAN. A row measured
 * inf is in the table as invalid, and nowhere else. */
static const Row *got(const char *key) {
    const Row *r = rows_find(rows, nrows, NULL, key, NULL);
    return r && isfinite(r->measured) ? r : NULL;
}
static double M(const char *key) { const Row *r = got(key); return r ? r->measured : NAN; }
static double T(const char *key) { const Row *r = rows_find(rows, nrows, NULL, key, NULL); return r ? r->theory : NAN; }
/* The emulated dispatcher's median cost per launch the days ran with (day11's, else day09's:
 * --dispatch-us, the median of a distribution, gpu/dispatch.h), and a key with it filled in:
 * D("busy_eager_b1_d%.0f") -> "busy_eager_b1_d14". */
static double dispatch_us(void) {
    const char *days[] = {"day11", "day09"};
    for (int i = 0; i < 2; i++) {
        const Row *r = rows_find(rows, nrows, days[i], "dispatch_median_us", NULL);
        if (r && isfinite(r->measured)) return r->measured;
    }
    return DISPATCH_US_DEFAULT;
}
/* Its mean draw (day09's dispatch_mean_us; else the built-in shape's at that median): what
 * a step's launches pay on average. */
static double dispatch_mean_us(void) {
    const Row *r = rows_find(rows, nrows, "day09", "dispatch_mean_us", NULL);
    return r && isfinite(r->measured) ? r->measured : dispatch_us() * dispatch_mean(&DISPATCH_BUILTIN);
}
static const char *D(const char *fmt) {
    static char buf[8][64];
    static int i;
    char *b = buf[i++ & 7];
    snprintf(b, 64, fmt, dispatch_us());
    return b;
}

/* A number the way a person writes it: 3 significant digits, no exponent, whole numbers
 * without decimals, "—" for none. Eight rotating buffers, so one printf can hold several. */
static const char *num(double v) {
    static char buf[8][32];
    static int i;
    char *b = buf[i++ & 7];
    double a = fabs(v);
    if (!isfinite(v)) snprintf(b, 32, "—");
    else snprintf(b, 32, a >= 100 || v == (long)v ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", v);
    return b;
}
/* A number with its unit: "4.15×", "62%", "1.90 ms", "38 µs". */
static const char *with_unit(double v, const char *unit) {
    static char buf[8][48];
    static int i;
    char *b = buf[i++ & 7];
    if (!strcmp(unit, "x")) snprintf(b, 48, "%s×", num(v));
    else if (!strcmp(unit, "%")) snprintf(b, 48, "%s%%", num(v));
    else if (!strcmp(unit, "count") || !*unit) snprintf(b, 48, "%s", num(v));
    else snprintf(b, 48, "%s %s", num(v), !strcmp(unit, "us") ? "µs" : unit);
    return b;
}
/* A value that is not a finite number, shown as what it is: "invalid (inf)". */
static const char *invalid(double v) {
    static char buf[4][32];
    static int i;
    char *b = buf[i++ & 3];
    snprintf(b, 32, "invalid (%s)", v > 0 ? "inf" : "-inf");
    return b;
}
/* Where a value sits against the lesson's band [lo, hi]. */
static const char *band(double v, double lo, double hi) {
    return v < lo ? "below" : v > hi ? "above" : "inside";
}

/* ---- the comparison table ------------------------------------------------------------ */
typedef struct { char theory[640], measured[640], why[640]; } Cell;   /* add() writes 640 at most */

/* Appends one clause to a cell, "; " between clauses. */
static void add(char *cell, const char *fmt, ...) {
    size_t n = strlen(cell);
    if (n) n += snprintf(cell + n, 640 - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cell + n, 640 - n, fmt, ap);
    va_end(ap);
}

/* "4.15× the floor", when the row has a floor. */
static void over_floor(const Row *r, Cell *c, const char *floor) {
    if (r->theory > 0 && isfinite(r->theory)) add(c->why, "%s× %s", num(r->measured / r->theory), floor);
}

/* The forecast column: day11's timeline model replaying this run's steps on a T4 (its
 * forecast_t4_* rows' theory column); on a T4 the reference run's instead (answers/reference/
 * rows.tsv, an H200's steps replayed on a T4), so that the student's measurement checks it. */
static Row *frows;
static int nfrows;
static const char *fsource;
static int on_t4;   /* the GPU at hand is a T4: no sentence tells it what a T4 "would" do */
static void forecast_open(void) {
    free(frows);
    frows = NULL, nfrows = 0;
    const Row *gpu = got("gpu");
    fsource = "this run";
    on_t4 = gpu && strstr(gpu->note, "T4") && !strstr(gpu->note, "emulated");
    if (on_t4) {
        FILE *f = fopen(REFERENCE_ROWS, "r");
        if (f) {
            fclose(f);
            nfrows = rows_read(REFERENCE_ROWS, &frows);
            fsource = "the reference run (" REFERENCE_ROWS ")";
            return;
        }
    }
}
/* A day11 forecast row's value (its theory column) from the forecast's source, or NAN */
static double FT(const char *key) {
    const Row *r = rows_find(frows ? frows : rows, frows ? nfrows : nrows, "day11", key, NULL);
    return r ? r->theory : NAN;
}

static void why_gpu(const Row *r, Cell *c) {
    if (r->measured >= 10 && r->measured < 1000 && r->measured == floor(r->measured))   /* cc 7.5 is 75 */
        snprintf(c->measured, sizeof c->measured, "%s (cc %d.%d)", r->note, (int)r->measured / 10,
                 (int)r->measured % 10);
    else snprintf(c->measured, sizeof c->measured, "%s (invalid compute capability %s)", r->note, num(r->measured));
    double bw = T("weight_gb") / T("tpot_ms") * 1000, peak = T("matmul_synced_tflops");
    double ridge = T("prefill_intensity_200");
    c->theory[0] = 0;
    if (!isnan(bw)) add(c->theory, "%s GB/s", num(bw));
    if (!isnan(peak)) add(c->theory, "fp16 %s TFLOP/s", num(peak));
    if (!isnan(ridge)) add(c->theory, "ridge %s FLOP/B", num(ridge));
    if (!c->theory[0]) snprintf(c->theory, sizeof c->theory, "— (make day09)");
    if (on_t4) add(c->why, "the lesson's GPU: its floors are this run's");
    else if (!isnan(bw))
        add(c->why, "moves bytes %s× as fast as the lesson's T4 (datasheet: 320 GB/s): every floor below is that much "
                    "lower", num(bw / 320));
    add(c->why, r->measured < 80 ? "no bf16 tensor cores, so fp16 throughout (mistake #1)"
                                 : "has bf16 tensor cores; the kit computes in fp16 anyway, like the T4");
}
static void why_weights(const Row *r, Cell *c) {
    double x = r->measured / r->theory;
    if (!(x > 0)) return;
    if (x > 1.8) add(c->why, "%s× the fp16 bytes: fp32 weights? (mistake #1)", num(x));
    else if (x >= 1) add(c->why, "fp16 weights + %s GB of KV cache, workspace and context", num(r->measured - r->theory));
    else add(c->why, "less than the weights alone: not all of them reached the GPU");
}
/* Where the spread came from, from day07's rows: the slowest sample (an early one: the warm-up
 * was short; a later one: the machine) and the share of its extra time in the decode steps,
 * which in eager are the host's (day11's busy ratio says how much). */
static void why_range(const Row *r, Cell *c) {
    if (r->measured < r->theory) add(c->why, "within the lesson's 10%% bar: stable enough to compare");
    else add(c->why, "above the lesson's 10%% bar");
    const double slow = M("warm_slowest_sample"), decode = M("warm_spread_decode_pct"), busy = M("busy_eager_b1_d0");
    if (!isnan(slow))
        add(c->why, "the slowest of the 10 was sample %s, %s", num(slow),
            slow <= 2 ? "one of the first: the warm-up was too short (mistake #2)"
                      : "after the warm-up had settled: the machine moved, not the warm-up (another process, the host, "
                        "clocks; mistake #3)");
    if (!isnan(decode))
        add(c->why, "%s%% of its extra time was in the decode steps%s", num(decode),
            decode > 50 && busy < 50 ? ", which are host-bound (busy under 50%, day11): the host moved" : "");
}
static void why_ttft(const Row *r, Cell *c) {
    over_floor(r, c, "its floor");
    double ridge = T("prefill_intensity_200");
    if (!isnan(ridge))
        add(c->why, "200 tokens = 200 FLOP/B against a ridge of %s: the %s side", num(ridge),
            ridge > 200 ? "memory" : "compute");
}
static void why_tpot(const Row *r, Cell *c) {
    over_floor(r, c, "the floor");
    if (got("gemm_ms_per_step"))
        add(c->why, "the GEMMs take %s ms of it (day10), other kernels and gaps the rest", num(M("gemm_ms_per_step")));
    if (got(D("busy_eager_b1_d%.0f"))) add(c->why, "the GPU is busy %s%% of a step", num(M(D("busy_eager_b1_d%.0f"))));
    if (got("dispatch_cost_ms"))
        add(c->why, "%s ms of it is the emulated dispatcher (theory: %s launches × its mean draw, %s µs at a median of "
            "%s, = %s ms)", num(M("dispatch_cost_ms")), num(T("dispatch_cost_ms") * 1e3 / dispatch_mean_us()),
            num(dispatch_mean_us()), num(dispatch_us()), num(T("dispatch_cost_ms")));
}
static void why_bare(const Row *r, Cell *c) {
    over_floor(r, c, "the floor");
    if (got("busy_eager_b1_d0"))
        add(c->why, "busy %s%% (day11's bare C step, %s ms)", num(M("busy_eager_b1_d0")), num(M("tpot_ms_eager_b1_d0")));
    if (got("tpot_ms"))
        add(c->why, "the same kernels without Python's median %s µs a launch: %s× faster than the emulated HF eager step",
            num(dispatch_us()), num(M("tpot_ms") / r->measured));
    if (!isnan(FT("forecast_t4_busy_eager_b1_d0")))
        add(c->why, "the T4 forecast: busy %s%%, the kernels' %s ms setting the step", num(FT("forecast_t4_busy_eager_b1_d0")),
            num(FT("forecast_t4_gpu_ms_per_step_eager_b1_d0")));
}
static void why_ratio(const Row *r, Cell *c) {
    static const struct { double hi; const char *range, *means; } bands[] = {
        {1.0, "below 1", "faster than bandwidth allows: a missing synchronize (day08)"},
        {1.5, "1.0–1.5", "at the bandwidth limit; unlikely in eager, recheck day08's rules"},
        {3.0, "1.5–3", "memory-bound holds: the step is mostly moving weights"},
        {6.0, "3–6", "CPU cost and GPU time of one magnitude: day11 finds the gaps"},
        {INFINITY, "> 6", "overhead dominates: the GPU mostly waits for the CPU"},
    };
    int i = 0;
    while (i < 4 && r->measured >= bands[i].hi) i++;   /* the last band has no end */
    add(c->why, "ratio %s: in the lesson's %s band: %s", num(r->measured), bands[i].range, bands[i].means);
    add(c->why, "%s the 2–4 expected of HF eager", band(r->measured, 2, 4));
    if (got("dispatch_cost_ms") && on_t4)   /* the host's cost is the same on any GPU; the floor is not */
        add(c->why, "the dispatcher's %s ms alone are %s× this GPU's floor", num(M("dispatch_cost_ms")),
            num(M("dispatch_cost_ms") / T("tpot_ms")));
    else if (got("dispatch_cost_ms"))
        add(c->why, "the dispatcher's %s ms alone are %s× the lesson's T4 floor of 6.9 ms, %s× this GPU's: a faster GPU "
            "raises the ratio (mistake #14)", num(M("dispatch_cost_ms")), num(M("dispatch_cost_ms") / 6.9),
            num(M("dispatch_cost_ms") / T("tpot_ms")));
}
static void why_toks(const Row *r, Cell *c) {
    if (got("mbu")) add(c->why, "MBU %s%%: the share of the bandwidth a step uses (1 / ratio)", num(M("mbu")));
}
static void why_ttft_tpot(const Row *r, Cell *c) {
    add(c->why, "a 200-token prefill costs %s decode steps, %s the lesson's 2–5", num(r->measured),
        band(r->measured, 2, 5));
    add(c->why, "the kit's prefill runs one kernel per op (about half an eager step's launches, each with the "
                "dispatcher) where HF's eager prefill runs as many ops as its decode step; this GPU's TTFT floor is "
                "%s ms%s", num(T("ttft_ms")), on_t4 ? "" : ", the lesson's T4 floor 6.9");
    if (got("ttft_ms_bare") && got("tpot_ms_fused"))
        add(c->why, "bare C, fused: %s ms ÷ %s ms = %s", num(M("ttft_ms_bare")), num(M("tpot_ms_fused")),
            num(M("ttft_ms_bare") / M("tpot_ms_fused")));
}
static void why_gemms(const Row *r, Cell *c) {
    double want = isnan(r->theory) ? 155 : r->theory;   /* from the config: 7 per layer x layers + 1 */
    if (r->measured == want) add(c->why, "matches day 2's count: 7 linears × 22 layers + lm_head");
    else add(c->why, "%s off the config's %s: some linear layers were not seen as GEMMs", num(r->measured - want), num(want));
}
/* A top-k kernel row (note "name -> parts") as "`name` → parts, share%"; its parts into part. */
static void top_cell(const Row *r, char *cell, size_t cap, char part[64]) {
    char name[200] = "?";
    const char *arrow = strstr(r->note, "->");
    snprintf(name, sizeof name, "%.*s", arrow ? (int)(arrow - r->note) : (int)strlen(r->note), r->note);
    snprintf(part, 64, "%s", arrow ? arrow + 2 + strspn(arrow + 2, " ") : "?");
    name[strcspn(name, "|")] = 0;
    for (char *e = name + strlen(name); e > name && e[-1] == ' '; ) *--e = 0;
    if (strlen(name) > 48) strcpy(name + 45, "...");
    snprintf(cell, cap, "`%s` → %s, %s%%", name, part, num(r->measured));
}
/* The lesson's table is by family (day10's family_top<k>_share rows, note "family: N kernels
 * per step; top kernel NAME"): rank k's family, its kernels and share, its top kernel as detail. */
static void why_top(const Row *r, Cell *c, int rank) {
    static const char *const family[] = {"linear", "elementwise", "attention"};
    static const double lo[] = {60, 10, 5}, hi[] = {80, 20, 10};
    char fam[32] = "?", top[80] = "?";
    double kernels = NAN;
    sscanf(r->note, "%31[^:]: %lf kernels per step", fam, &kernels);
    const char *t = strstr(r->note, "top kernel ");
    if (t) snprintf(top, sizeof top, "%s", t + strlen("top kernel "));
    snprintf(c->measured, sizeof c->measured, "%s, %s kernels a step, %s%% (top kernel `%s`)", fam, num(kernels),
             num(r->measured), top);
    if (!strcmp(fam, family[rank - 1])) add(c->why, "the lesson's family for rank %d (%s)", rank, fam);
    else add(c->why, "the lesson has %s at rank %d; here %s", family[rank - 1], rank, fam);
    add(c->why, "share %s its %g–%g%%", band(r->measured, lo[rank - 1], hi[rank - 1]), lo[rank - 1], hi[rank - 1]);
}
static void why_top1(const Row *r, Cell *c) { why_top(r, c, 1); }
static void why_top2(const Row *r, Cell *c) { why_top(r, c, 2); }
static void why_top3(const Row *r, Cell *c) { why_top(r, c, 3); }
static void why_gemm_ms(const Row *r, Cell *c) {
    double eff = got("gemm_bw_eff") ? M("gemm_bw_eff") : 100 * r->theory / r->measured;
    if (isnan(eff)) return;
    add(c->why, "floor ÷ GEMM time = %s%% bandwidth efficiency while they run (W3 measures the ceiling)", num(eff));
}
static void why_kernels(const Row *r, Cell *c) {
    add(c->why, "%s the lesson's 300–400", band(r->measured, 300, 400));
    if (got("gemms_per_step"))
        add(c->why, "%s GEMMs + %s small kernels (eager splits RMSNorm, RoPE, SiLU)",
            num(M("gemms_per_step")), num(r->measured - M("gemms_per_step")));
}
static void why_busy1(const Row *r, Cell *c) {
    add(c->why, "%s the lesson's 50–65%%: %s ms of kernels in day11's %s ms step (day11 times its own steps; day09's "
                "TPOT above is %s ms)", band(r->measured, 50, 65), num(M(D("gpu_ms_per_step_eager_b1_d%.0f"))),
        num(M(D("tpot_ms_eager_b1_d%.0f"))), num(M("tpot_ms")));
    if (!isnan(FT(D("forecast_t4_gpu_ms_per_step_eager_b1_d%.0f"))))
        add(c->why, "the T4 forecast: %s ms of kernels in a %s ms step: the same host, slower kernels (mistake #14)",
            num(FT(D("forecast_t4_gpu_ms_per_step_eager_b1_d%.0f"))), num(FT(D("forecast_t4_tpot_ms_eager_b1_d%.0f"))));
    if (got("busy_eager_b1_d0")) add(c->why, "bare C launches: %s%%", num(M("busy_eager_b1_d0")));
    if (got(D("busy_traced_eager_b1_d%.0f")))
        add(c->why, "the full trace's timeline would show %s%%: the tracer's own cost (day11)",
            num(M(D("busy_traced_eager_b1_d%.0f"))));
}
static void why_busy32(const Row *r, Cell *c) {
    const char *b1 = D("busy_eager_b1_d%.0f");
    if (!got(b1)) return;
    double d = r->measured - M(b1);
    add(c->why, "%s%s points over batch 1 (%s%% → %s%%)", d >= 0 ? "+" : "", num(d), num(M(b1)), num(r->measured));
    if (got(D("tpot_ms_eager_b1_d%.0f")) && got(D("tpot_ms_eager_b32_d%.0f")))
        add(c->why, "TPOT %s → %s ms: the same launches carry 32× the tokens",
            num(M(D("tpot_ms_eager_b1_d%.0f"))), num(M(D("tpot_ms_eager_b32_d%.0f"))));
}
static void why_nvml(const Row *r, Cell *c) {
    const double busy = M(D("busy_eager_b1_d%.0f"));
    if (!isnan(busy) && r->measured > 2 * busy + 10)
        add(c->why, "far above the busy ratio (%s%%): a kernel ran in every sample window (mistake #13)", num(busy));
    else if (!isnan(busy))
        add(c->why, "close to the busy ratio (%s%%): this driver reports the share of time a kernel ran, not the "
                    "lesson's 100%% for any window with a kernel in it", num(busy));
    if (got("nvml_util_graph_b1_d0") && got("mbu_graph"))
        add(c->why, "what it cannot say is how much of the GPU a kernel uses: the graph step reads %s%% with an MBU "
                    "of %s%% (seed 004's first trap)", num(M("nvml_util_graph_b1_d0")), num(M("mbu_graph")));
}
static void why_gap(const Row *r, Cell *c) {
    add(c->why, "%s the lesson's 10–40: the dispatcher's draw (median %s µs) plus the launch call, less a kernel's "
        "time", band(r->measured, 10, 40), num(dispatch_us()));
    if (got(D("gap_p90_us_eager_b1_d%.0f"))) add(c->why, "p90 %s µs", num(M(D("gap_p90_us_eager_b1_d%.0f"))));
    if (got(D("host_bound_eager_b1_d%.0f")))
        add(c->why, "%s%% of gap time the CPU was still launching", num(M(D("host_bound_eager_b1_d%.0f"))));
    const char *waits = strstr(r->note, "waits for the launch of: ");
    if (waits && strcmp(waits + strlen("waits for the launch of: "), "other"))   /* "other" names no op */
        add(c->why, "the typical gap waits for the launch of a %s kernel", waits + strlen("waits for the launch of: "));
    if (got("gap_median_us_eager_b1_d0")) add(c->why, "bare C launches: %s µs", num(M("gap_median_us_eager_b1_d0")));
}
static void why_graph(const Row *r, Cell *c) {
    over_floor(r, c, "the floor");
    if (got(D("launches_per_step_eager_b1_d%.0f")) && got(D("launches_per_step_graph_b1_d%.0f")))
        add(c->why, "graph mode cuts the launches per step from %s to %s", num(M(D("launches_per_step_eager_b1_d%.0f"))),
            num(M(D("launches_per_step_graph_b1_d%.0f"))));
    if (got(D("busy_eager_b1_d%.0f")) && got(D("busy_graph_b1_d%.0f")))
        add(c->why, "busy ratio %s%% → %s%%", num(M(D("busy_eager_b1_d%.0f"))), num(M(D("busy_graph_b1_d%.0f"))));
    if (got("tpot_ms")) add(c->why, "eager %s ms", num(M("tpot_ms")));
}

typedef struct {
    const char *item, *day, *key, *lesson;
    void (*why)(const Row *r, Cell *c);
    const char *forecast;   /* day11's forecast_t4_* row that stands for it (its theory column), or NULL */
} Item;

/* The lesson's template, row for row. Lesson column: T4, TinyLlama-1.1B fp16, HF eager.
 * The rows marked "emulated HF eager" run the kit's eager step with a host busy-wait before
 * every launch drawn from a real PyTorch trace's host gaps (day09, day11: --dispatch-us, the
 * median, default 14 us; the lesson's 30-50 us of Python per op): the lesson's regime on any
 * GPU. Keys with %.0f take the median. */
static const Item items[] = {
    {"GPU, toolkit", "day07", "gpu", "Tesla T4 (Turing, 16 GB, 320 GB/s, 65 TFLOP/s); PyTorch + transformers", why_gpu},
    {"Weight memory after load", "day07", "weight_gb", "2.2 GB", why_weights},
    {"Range / median of 10 generates", "day07", "warm_range_pct", "< 10%", why_range},
    {"TTFT (200-token prompt), emulated HF eager", "day09", "ttft_ms", "floor ≈ 7 ms, expected 15–40 ms", why_ttft},
    {"TPOT (median), emulated HF eager", "day09", "tpot_ms", "floor 6.9 ms, expected 15–30 ms", why_tpot, "forecast_t4_tpot_ms_eager_b1_d%.0f"},
    {"TPOT, the kit's bare C eager (no Python)", "day09", "tpot_ms_eager", "— (the lesson runs Python)", why_bare, "forecast_t4_tpot_ms_eager_b1_d0"},
    {"Ratio = TPOT ÷ floor, emulated HF eager", "day09", "ratio", "expected 2–4", why_ratio},
    {"tok/s, emulated HF eager", "day09", "tok_s", "at most 145", why_toks},
    {"TTFT ÷ TPOT, emulated HF eager", "day09", "ttft_over_tpot", "expected 2–5", why_ttft_tpot},
    {"Linear layers per step", "day10", "gemms_per_step", "155 (aten::linear)", why_gemms},
    {"Top 1 kernel family / share", "day10", "family_top1_share", "gemm/gemv, 60–80%", why_top1},
    {"Top 2 kernel family / share", "day10", "family_top2_share", "elementwise, 10–20%", why_top2},
    {"Top 3 kernel family / share", "day10", "family_top3_share", "attention, 5–10%", why_top3},
    {"GEMM GPU time per step", "day10", "gemm_ms_per_step", "a little above 6.9 ms", why_gemm_ms},
    {"Kernels per step", "day10", "kernels_per_step", "300–400", why_kernels},
    {"GPU busy ratio, batch 1, emulated HF eager", "day11", "busy_eager_b1_d%.0f", "50–65%", why_busy1, "forecast_t4_busy_eager_b1_d%.0f"},
    {"GPU busy ratio, batch 32, emulated HF eager", "day11", "busy_eager_b32_d%.0f", "clearly above batch 1", why_busy32, "forecast_t4_busy_eager_b32_d%.0f"},
    {"nvidia-smi utilization, emulated HF eager", "day11", "nvml_util_eager_b1_d%.0f", "~100% (mistake #13)", why_nvml},
    {"Typical gap, emulated HF eager", "day11", "gap_median_us_eager_b1_d%.0f", "10–40 µs", why_gap},
    {"TPOT with CUDA graphs, emulated HF eager", "day09", "tpot_ms_graph_d%.0f", "close to 8 ms (reduce-overhead)", why_graph, "forecast_t4_tpot_ms_graph_b1_d%.0f"},
};
enum { N_ITEMS = sizeof items / sizeof items[0] };

static void forecast_cell(const Item *it, char *cell, size_t cap) {
    const Row *r = it->forecast ? rows_find(frows ? frows : rows, frows ? nfrows : nrows, "day11", D(it->forecast), NULL)
                                : NULL;
    snprintf(cell, cap, "%s", r && isfinite(r->theory) ? with_unit(r->theory, r->unit) : "—");
}


static int write_table(void) {
    int missing = 0;
    fprintf(out, "| item | theory for this GPU | the lesson's expectation (T4, HF eager) | T4 forecast (the kit's model) | "
                 "measured | difference and why |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < N_ITEMS; i++) {
        const Item *it = &items[i];
        const Row *r = rows_find(rows, nrows, NULL, D(it->key), NULL);
        Cell c = {"—", "", ""};
        if (!r || isnan(r->measured)) {
            snprintf(c.measured, sizeof c.measured, "not run (make %s)", it->day);
            snprintf(c.why, sizeof c.why, "—");
            missing++;
        } else if (!isfinite(r->measured)) {
            snprintf(c.measured, sizeof c.measured, "%s", invalid(r->measured));
            snprintf(c.why, sizeof c.why, "a measurement that is not a finite number: rerun make %s", it->day);
        } else {
            if (isinf(r->theory)) snprintf(c.theory, sizeof c.theory, "%s", invalid(r->theory));
            else if (!isnan(r->theory)) snprintf(c.theory, sizeof c.theory, "%s", with_unit(r->theory, r->unit));
            snprintf(c.measured, sizeof c.measured, "%s", with_unit(r->measured, r->unit));
            it->why(r, &c);
            if (!c.why[0]) snprintf(c.why, sizeof c.why, "—");
        }
        char fc[64];
        forecast_cell(it, fc, sizeof fc);
        fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", it->item, c.theory, it->lesson, fc, c.measured, c.why);
    }
    fprintf(out, "\n*The T4 forecast* is day11's timeline model (section 8): the steps of %s replayed on a Colab "
                 "T4 (240 GB/s by a device-to-device copy, its datasheet's 320; 65 TFLOP/s; no programmatic dependent "
                 "launch), with the kernel efficiencies and fixed costs fitted on the GPU that ran them and that "
                 "machine's host; the lesson's column is the course's own expectation.\n", fsource);
    return missing;
}

/* ---- the charts ------------------------------------------------------------------------- */
enum { NMODES = 4 };
static const char *const modes[NMODES] = {"eager", "graph_eager", "fused", "graph"};
static const unsigned mode_rgb[] = {0x0072B2, 0xCC79A7, 0xE69F00, 0x009E73};     /* with the dispatcher: */
static const unsigned mode_rgb_disp[] = {0x56B4E9, 0xE5B3D3, 0xF5C97A, 0x7FD1B5};  /* the same hue, lighter */
static const int batches[] = {1, 32}, sweep_us[] = {0, 5, 10, 14, 20};   /* day11's SWEEP: medians */

static void not_run(const char *what, const char *day) {
    fprintf(out, "*%s: not run (make %s).*\n\n", what, day);
}
/* Links a chart that was drawn (drawn == 0), or says that it could not be. */
static void embed(const char *title, const char *file, int drawn) {
    if (drawn == 0) fprintf(out, "![%s](%s)\n\n", title, file);
    else fprintf(out, "*%s: the chart could not be drawn (see bin/day12_report's output).*\n\n", title);
}
static const char *path_of(const char *file) {
    static char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return p;
}

static void chart_tpot_modes(void) {
    ChartBar bars[2 * NMODES];
    char labels[2 * NMODES][48];
    int n = 0;
    double floor_ms = NAN;
    for (int d = 1; d >= 0; d--)
        for (int m = 0; m < NMODES; m++) {
            char key[48];
            if (d) snprintf(key, sizeof key, "tpot_ms_%s_d%.0f", modes[m], dispatch_us());
            else snprintf(key, sizeof key, "tpot_ms_%s", modes[m]);
            if (!got(key)) continue;
            snprintf(labels[n], sizeof labels[n], "%s%s", modes[m], d ? ", dispatcher" : "");
            bars[n] = (ChartBar){labels[n], M(key), d ? mode_rgb_disp[m] : mode_rgb[m]};
            floor_ms = T(key);
            n++;
        }
    if (!n) { not_run("TPOT per mode against the floor", "day09"); return; }
    char label[64];
    snprintf(label, sizeof label, "floor %s ms", num(floor_ms));
    ChartRef ref = {floor_ms, label};
    Chart c = {.title = "TPOT per mode (batch 1) against the bandwidth floor", .xlabel = "ms per token",
               .refs = &ref, .nrefs = !isnan(floor_ms)};
    fprintf(out, "**TPOT per mode.** Each bar is one way to run the same math, with the emulated dispatcher (a median "
                 "%s µs before each launch, lighter) and with the kit's bare C launches; the dashed line is weight bytes ÷ "
                 "bandwidth (%s ms). The closer a bar, the less of the step is not moving weights: here from %s ms (eager, "
                 "the dispatcher) to %s ms (graph, bare C).\n\n", num(dispatch_us()), num(T("tpot_ms")),
            num(M(D("tpot_ms_eager_b1_d%.0f"))), num(M("tpot_ms_graph_b1_d0")));
    embed("TPOT per mode", "tpot_modes.png", chart_bars(&c, path_of("tpot_modes.png"), bars, n));
}

static void chart_busy(void) {
    ChartBar bars[4 * NMODES];
    char labels[4 * NMODES][40];
    int n = 0;
    const double dispatches[] = {0, dispatch_us()};
    for (int m = 0; m < NMODES; m++)
        for (int b = 0; b < 2; b++)
            for (int d = 0; d < 2; d++) {
                char key[64];
                snprintf(key, sizeof key, "busy_%s_b%d_d%.0f", modes[m], batches[b], dispatches[d]);
                if (!got(key)) continue;
                snprintf(labels[n], sizeof labels[n], "%s b%d d%.0f", modes[m], batches[b], dispatches[d]);
                bars[n] = (ChartBar){labels[n], M(key), d ? mode_rgb_disp[m] : mode_rgb[m]};
                n++;
            }
    if (!n) { not_run("GPU busy ratio per configuration", "day11"); return; }
    ChartRef refs[] = {{50, "50%"}, {65, "65% (lesson)"}};
    Chart c = {.title = "GPU busy ratio (mode, batch, dispatch us)",
               .xlabel = "busy ratio (%)", .refs = refs, .nrefs = 2};
    fprintf(out, "**Busy ratio per configuration.** GPU time per step (kernel intervals merged, from a kernel-only "
                 "trace) ÷ the step's untraced TPOT. d%s adds host work before each launch, like a Python dispatcher, "
                 "drawn from a real PyTorch trace's host gaps with a median of %s µs; the lesson's T4 band is "
                 "50–65%%. Here batch 1 runs from %s%% (eager, d%s) to %s%% (graph, d0).\n\n", num(dispatch_us()),
            num(dispatch_us()), num(M(D("busy_eager_b1_d%.0f"))), num(dispatch_us()), num(M("busy_graph_b1_d0")));
    embed("busy ratio per configuration", "busy.png", chart_bars(&c, path_of("busy.png"), bars, n));
}

/* results/gaps_<cfg>.tsv: one gap a line, in us. */
static double *read_gaps(const char *cfg, int *n) {
    char file[64];
    snprintf(file, sizeof file, "gaps_%s.tsv", cfg);
    char *text = read_file(path_of(file), NULL);
    *n = 0;
    if (!text) return NULL;
    int cap = 256;
    double *v = xmalloc(sizeof(double) * cap);
    for (char *p = text, *end; ; p = end) {
        double x = strtod(p, &end);
        if (end == p) break;
        if (*n == cap) { cap *= 2; v = realloc(v, sizeof(double) * cap); if (!v) die("out of memory reading %s", file); }
        v[(*n)++] = x;
    }
    free(text);
    return v;
}

static void chart_gaps(void) {
    const char *cfgs[] = {D("eager_b1_d%.0f"), "eager_b1_d0", "graph_eager_b1_d0", "fused_b1_d0", "graph_b1_d0"};
    ChartSample s[5];
    double *data[5];
    int ns = 0;
    for (int i = 0; i < 5; i++) {
        int n;
        data[i] = read_gaps(cfgs[i], &n);
        if (n > 0) s[ns++] = (ChartSample){cfgs[i], data[i], n, 0};
    }
    if (!ns) not_run("The gap histogram", "day11");
    else {
        Chart c = {.title = "Gaps between kernels on the GPU timeline, each configuration's share of its own gaps",
                   .xlabel = "gap (us, log scale)", .ylabel = "share of its gaps (%)", .logx = 1, .density = 1};
        fprintf(out, "**The gaps.** Every idle interval between kernels inside the measured steps (kernel-only trace), "
                     "each configuration as a share of its own gaps, so the few of the fused and graph steps show "
                     "beside eager's many:");
        for (int i = 0; i < ns; i++) {
            char per_step[64], median[64];
            snprintf(per_step, sizeof per_step, "gaps_per_step_%s", s[i].name);
            snprintf(median, sizeof median, "gap_median_us_%s", s[i].name);
            fprintf(out, "%s %s %s a step, median %s µs", i ? ";" : "", s[i].name, num(M(per_step)), num(M(median)));
        }
        fprintf(out, ". Microseconds: nvidia-smi's sampling window is hundreds of milliseconds and never shows them "
                     "(mistake #13).\n\n");
        embed("gap histogram", "gaps.png", chart_hist(&c, path_of("gaps.png"), s, ns, 30));
    }
    for (int i = 0; i < 5; i++) free(data[i]);
}

static void chart_sweep(void) {
    double x[5], tpot[5], busy[5];
    int n = 0;
    for (int i = 0; i < 5; i++) {
        char kt[32], kb[32];
        snprintf(kt, sizeof kt, "sweep_tpot_ms_d%d", sweep_us[i]);
        snprintf(kb, sizeof kb, "sweep_busy_d%d", sweep_us[i]);
        if (!got(kt) || !got(kb)) continue;
        x[n] = sweep_us[i]; tpot[n] = M(kt); busy[n] = M(kb); n++;
    }
    if (!n) { not_run("The dispatch sweep", "day11"); return; }
    char label[64];
    snprintf(label, sizeof label, "floor %s ms", num(T("sweep_tpot_ms_d0")));
    ChartRef ref = {T("sweep_tpot_ms_d0"), label};
    ChartSeries st = {"TPOT, eager batch 1", x, tpot, n, 0, 0}, sb = {"busy ratio", x, busy, n, 0, 0};
    Chart ct = {.title = "Dispatch sweep: TPOT against host cost per launch", .xlabel = "dispatch median (us per launch)",
                .ylabel = "TPOT (ms)", .refs = &ref, .nrefs = !isnan(ref.value)};
    Chart cb = {.title = "Dispatch sweep: busy ratio against host cost per launch",
                .xlabel = "dispatch median (us per launch)", .ylabel = "busy ratio (%)"};
    fprintf(out, "**The dispatch sweep.** Host work added before every launch, drawn from a real PyTorch trace's "
                 "host gaps; the axis is its median (its mean is %s× that). While it is shorter than a kernel's GPU "
                 "time the queue stays ahead and TPOT holds; past that the GPU waits and TPOT grows with it.",
            num(dispatch_mean_us() / dispatch_us()));
    if (got("crossover_us") && M("crossover_us") > 0)
        fprintf(out, " The curve turned at a median of %s µs of dispatch per launch.", num(M("crossover_us")));
    else if (got("crossover_us"))
        fprintf(out, " The rising line through the largest dispatches meets TPOT without any at %s µs, at or "
                     "below zero: the curve never held flat; the step was overhead-bound from the start.",
                num(M("crossover_us")));
    if (T("crossover_us") >= 0)
        fprintf(out, " Predicted: %s µs ((GPU time per step ÷ launches − one launch call) ÷ the draws' mean over "
                     "their median).", num(T("crossover_us")));
    else if (T("crossover_us") < 0)
        fprintf(out, " Predicted: below zero — the bare C launches already take longer than the kernels, so the "
                     "step is overhead-bound with no dispatcher at all.");
    fprintf(out, "\n\n");
    embed("TPOT against dispatch", "sweep_tpot.png", chart_lines(&ct, path_of("sweep_tpot.png"), &st, 1));
    embed("busy ratio against dispatch", "sweep_busy.png", chart_lines(&cb, path_of("sweep_busy.png"), &sb, 1));
}

static void timelines(void) {
    static const char *const mode[] = {"eager", "graph"};
    char file[2][32];
    for (int i = 0; i < 2; i++) snprintf(file[i], sizeof file[i], "timeline_%s.png", mode[i]);
    if (!file_exists(path_of(file[0])) && !file_exists(path_of(file[1]))) {
        not_run("The decode-step timelines", "day11");
        return;
    }
    fprintf(out, "**One decode step on the timeline** (day11, under the full tracer; CPU launches above, GPU kernels "
                 "below, coloured by model part, white = idle; a pixel column is shaded by the share of its time a "
                 "kernel ran, so the picture is as busy as the step: the eager step %s%%, the graph step %s%% "
                 "(`busy_traced_*`, the traced timeline's union over its span)). Open results/trace_*.json in "
                 "ui.perfetto.dev for the full picture.\n\n", num(M(D("busy_traced_eager_b1_d%.0f"))),
            num(M(D("busy_traced_graph_b1_d%.0f"))));
    for (int i = 0; i < 2; i++) {
        char title[64];
        snprintf(title, sizeof title, "decode step timeline, %s", mode[i]);
        if (file_exists(path_of(file[i]))) fprintf(out, "![%s](%s)\n\n", title, file[i]);
        else not_run(title, "day11");
    }
}

static void chart_parts(void) {
    ChartBar bars[P_COUNT];
    int n = 0;
    double total = 0;
    for (int p = 0; p < P_COUNT; p++) {
        char key[64];
        snprintf(key, sizeof key, "part_ms_%s", part_name(p));
        if (!got(key)) continue;
        bars[n++] = (ChartBar){part_name(p), M(key), chart_part_rgb(p)};
        total += M(key);
    }
    if (!n) { not_run("GPU time by model part", "day10"); return; }
    for (int i = 1; i < n; i++)          /* largest first */
        for (int j = i; j > 0 && bars[j].value > bars[j - 1].value; j--) {
            ChartBar t = bars[j]; bars[j] = bars[j - 1]; bars[j - 1] = t;
        }
    Chart c = {.title = "GPU time per decode step by model part (eager, batch 1)", .xlabel = "ms per step"};
    fprintf(out, "**Where the GPU time goes.** %s ms of kernels per step, grouped by the model part that "
                 "launched them (day10's CUPTI profile). Read shares here; absolute times come from the timer "
                 "(mistake #11).\n\n", num(total));
    embed("GPU time by model part", "parts.png", chart_bars(&c, path_of("parts.png"), bars, n));
}

/* ---- the profiling loop as an experiment log -------------------------------------------- */
/* A value with its unit; when it is not a finite number, "invalid (inf)" if the row it comes
 * from (key) was measured so, else "not run (make dayNN)". */
static const char *cell(double v, const char *key, const char *unit, const char *day) {
    static char buf[4][32];
    static int i;
    if (isfinite(v)) return with_unit(v, unit);
    const Row *r = rows_find(rows, nrows, NULL, key, NULL);
    if (r && isinf(r->measured)) return invalid(r->measured);
    char *b = buf[i++ & 3];
    snprintf(b, 32, "not run (make %s)", day);
    return b;
}

/* Why fused int8 gains so little here: day09's GEMV curve (section 7b). Each GEMV alone takes
 * c + bytes / (bandwidth x e); int8 halves the bytes and not c, so the gain depends on how much
 * of a GEMV is bytes, which is how large its matrix is. */
static void gemv_curve_why(double int8, double graph) {
    const double c16 = M("gemv_fit_c_us_fp16"), e16 = M("gemv_fit_e_fp16"), c8 = M("gemv_fit_c_us_int8"),
                 e8 = M("gemv_fit_e_int8"), tl = M("gemv_int8_speedup_tl_layer"), l7 = M("gemv_int8_speedup_7b_layer"),
                 mb = M("gemv_int8_1p6x_mb");
    fprintf(out, "**Why %s×, not 2×: a GEMV's time against its size** (day09 section 7b; results/gemv_curve.png). ",
            isnan(int8) || isnan(graph) ? "fused int8 gains" : num(graph / int8));
    if (isnan(c16) || isnan(c8)) {
        fprintf(out, "Not run (make day09): it times each GEMV alone from 1 to 268 MB in fp16 and int8.\n\n");
        return;
    }
    fprintf(out, "Each GEMV alone, cold, launched back to back as in a step, fits time = c + bytes ÷ (copy bandwidth "
                 "× e): fp16 c = %s µs, e = %s; int8 c = %s µs, e = %s (`gemv_fit_*`). int8 halves the bytes and not "
                 "c, %s. TinyLlama's matrices, 8 to 131 MB in fp16, are small enough for c to be much of each "
                 "GEMV: its layer's four GEMVs are %s× faster in int8 (`gemv_int8_speedup_tl_layer`)",
            num(c16), num(e16), num(c8), num(e8), c8 > c16 ? "which is even larger in int8 (the conversion and twice "
            "the products a stage cost time the bytes do not)" : "which stays", num(tl));
    if (!isnan(l7))
        fprintf(out, "; Llama-2-7B's, 34 to 262 MB, where the lesson measured its 1.47×, are %s× faster "
                     "(`gemv_int8_speedup_7b_layer`)", num(l7));
    if (!isnan(mb)) fprintf(out, ". The two fits make int8 1.6× faster from matrices of %s MB in fp16 (`gemv_int8_1p6x_mb`)", num(mb));
    fprintf(out, ". `make bench` decodes stacks of both shapes (bench_layers) to show the same in a whole step.");
    /* the fits' forecast of the int8 step (day09): fp16's step - the bytes' time saved + the extra c */
    const double pred = T("int8_step_from_curve_ms"), meas = M("int8_step_from_curve_ms"), extra = M("int8_extra_c_ms"),
                 f16 = M("tpot_ms_graph"), saved = f16 + extra - pred;
    if (!isnan(pred) && !isnan(meas) && !isnan(extra) && !isnan(f16) && saved > 0)
        fprintf(out, " The same fits forecast the int8 graph step: fp16's %s ms, minus %s ms for the bytes int8 does not "
                     "read, plus %s ms for int8's extra c over the step's GEMVs (`int8_extra_c_ms`), gives %s ms; "
                     "measured: %s ms (`int8_step_from_curve_ms`). The extra c gives back %s%% of what the halved bytes "
                     "save: at fp16's c the int8 step would take %s ms.",
                num(f16), num(saved), num(extra), num(pred), num(meas), num(100 * extra / saved), num(pred - extra));
    fprintf(out, "\n\n");
    if (file_exists(path_of("gemv_curve.png")))
        fprintf(out, "![a GEMV's time against its size, fp16 and int8](gemv_curve.png)\n\n");
}

/* One rung of the loop: TPOT from day09 (the one protocol, with the emulated dispatcher),
 * ratio and MBU against its floor (the int8 rungs': the int8 bytes), the busy ratio from
 * day11 (which runs the fp16 modes only: "—" for int8), and what changed; `more` adds the
 * rung's own clauses to the result. Returns the TPOT. */
static double log_step(const char *step, const char *mode, const char *hypothesis, const char *change, double prev_tpot,
                       const char *more) {
    char k[48], kb[48];
    snprintf(k, sizeof k, "tpot_ms_%s_d%.0f", mode, dispatch_us());
    const double tpot = M(k), floor_ms = T(k), ratio = tpot / floor_ms, mbu = 100 / ratio;
    const int int8 = !strncmp(mode, "int8", 4);
    snprintf(kb, sizeof kb, "busy_%s_b1_d%.0f", mode, dispatch_us());
    const double busy = int8 ? NAN : M(kb);
    char result[640] = "";
    double change_pct = 100 * (tpot / prev_tpot - 1);
    if (isnan(tpot)) snprintf(result, sizeof result, "%s", cell(tpot, k, "ms", "day09"));
    else {
        if (isfinite(change_pct)) add(result, "TPOT %s%s%%", change_pct >= 0 ? "+" : "", num(change_pct));
        if (more && *more) add(result, "%s", more);
        else if (!isnan(busy) && busy < 80) add(result, "still overhead: the GPU idles %s%% of the step", num(100 - busy));
        else if (!isnan(ratio) && ratio < 1.5) add(result, "now memory-bound: at the floor");
        else if (!isnan(busy)) add(result, "GPU busy; the kernels are slower than the floor: next, their bytes and "
                                           "efficiency");
    }
    fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", step, hypothesis, change, cell(tpot, k, "ms", "day09"),
            cell(ratio, k, "x", "day09"), cell(mbu, k, "%", "day09"), int8 ? "—" : cell(busy, kb, "%", "day11"),
            result[0] ? result : "—");
    return tpot;
}

static void experiment_log(void) {
    double floor_ms = T("tpot_ms");
    const char *eager = D("tpot_ms_eager_d%.0f"), *graph_eager = D("tpot_ms_graph_eager_d%.0f");
    fprintf(out, "## The profiling loop, as an experiment log\n\n"
                 "The five steps of the profiling-loop lesson: (1) measure a clean number — warm, synced, the "
                 "median (day07, day08); (2) compare it with a floor — ratio and MBU (day09); (3) zoom in only "
                 "where the time is — busy ratio first, then kernels (day10, day11); (4) change one thing; "
                 "(5) re-measure and write it down. One change per line, starting from the lesson's regime (the "
                 "eager step with the emulated dispatcher, a median %s µs a launch); every number is from results/rows.tsv.\n\n",
            num(dispatch_us()));
    fprintf(out, "| step | hypothesis | change | TPOT | ratio | MBU | busy (b1) | result |\n"
                 "|---|---|---|---|---|---|---|---|\n");
    log_step("0", "eager", "—", "baseline: emulated HF eager, one kernel per PyTorch op", NAN, NULL);
    log_step("1", "graph_eager", "the gaps are the launches' host cost", "CUDA graph of the same kernels: one launch per "
             "step", M(eager), NULL);
    char fused_k[96] = "the kit's fused kernels, still one launch";
    if (!isnan(M("kernels_graph")) && !isnan(M("kernels_graph_eager")))
        snprintf(fused_k, sizeof fused_k, "the kit's fused kernels (%s instead of %s), still one launch",
                 num(M("kernels_graph")), num(M("kernels_graph_eager")));
    const double graph = log_step("2", "graph", "what is left is the kernels' own time", fused_k, M(graph_eager), NULL);
    /* Step 3, read fewer bytes: int8 weights, a scale per output row. Its prediction first: if
     * only the linear layers' bytes halve, the part of the graph step that waits on them halves:
     * graph - (the fused step's GEMV path, day10) / 2. Then the two measurements of day09's
     * section 7, each from step 2: unfused (each layer written back to fp16 before the fp16
     * GEMV, the lesson's uncompiled int8) and fused (the GEMV reads int8). Their ratio and MBU
     * are against the int8 floor; the 16-bit floor is in the result. */
    const double gemm = M("gemm_path_ms_fused"), predicted = graph - gemm / 2, floor8 = T(D("tpot_ms_int8_graph_d%.0f"));
    const double gb16 = M("step_gb"), gbu = M("step_gb_int8_unfused"), gb8 = M("step_gb_int8");
    char hyp[160] = "now memory-bound: read fewer bytes", more[640] = "", fl[64] = "not run (make day09)";
    if (!isnan(predicted)) snprintf(hyp, sizeof hyp, "now memory-bound: read fewer bytes (predicted ≈ %s ms: graph − the GEMV "
                                    "path ÷ 2)", num(predicted));
    if (!isnan(gbu) && !isnan(gb16))
        add(more, "%s: a step moves %s GB of weights against fp16's %s (int8 read, fp16 written and read again)",
            gbu > gb16 ? "more bytes, not fewer" : "fewer bytes", num(gbu), num(gb16));
    log_step("3a", "int8_unfused_graph", hyp, "int8 weights, each layer dequantized to fp16 by its own kernel before "
             "the fp16 GEMV (the lesson's uncompiled int8)", graph, more);
    more[0] = 0;
    const double int8 = M(D("tpot_ms_int8_graph_d%.0f"));
    if (!isnan(gb8) && !isnan(gb16)) add(more, "%s GB a step, %s× fp16's", num(gb8), num(gb8 / gb16));
    if (!isnan(int8) && !isnan(floor_ms))
        add(more, "%s× the 16-bit floor (%s ms): %s", num(int8 / floor_ms), num(floor_ms),
            int8 < floor_ms ? "below it, as the lesson's compiled int8 was"
                            : "above it: the bytes halved, the per-kernel cost that is not bytes did not");
    log_step("3b", "int8_graph", "the extra bytes are the dequantization's: fuse it into the GEMV",
             "the GEMV reads int8, turns it into fp16 in registers, scales each row in the epilogue", graph, more);
    fprintf(out, "\n");
    if (isnan(floor_ms)) return;
    if (!isnan(floor8)) snprintf(fl, sizeof fl, "%s ms = %s tok/s", num(floor8), num(1000 / floor8));
    fprintf(out, "Step 3 is one idea measured twice. int8's floor is its bytes ÷ bandwidth: %s, against "
                 "16-bit's %s ms (the linear layers at 1 byte and a scale per row, the embedding table still 2 bytes). "
                 "Unfused, each layer's weights are written back to fp16 and read again, so a step moves more bytes "
                 "than fp16's and is slower; fused into the GEMV, the same int8 weights halve the bytes. The lesson's "
                 "own int8 model was *slower* than 16-bit until its dequantization was fused into the matmul: the "
                 "bottleneck moves after every fix, so every fix has to be measured again.\n\n",
            fl, num(floor_ms));
    gemv_curve_why(int8, graph);
}

/* Mistake #14 on this run's steps: day11's timeline model replays them on this GPU 2x and 10x
 * faster (its forecast_2x_* and forecast_10x_* rows, theory column), the host unchanged. */
static void faster_gpu(void) {
    const double te = M(D("tpot_ms_eager_b1_d%.0f")), te2 = T(D("forecast_2x_tpot_ms_eager_b1_d%.0f"));
    const double te10 = T(D("forecast_10x_tpot_ms_eager_b1_d%.0f")), tg = M("tpot_ms_graph_b1_d0");
    const double tg2 = T("forecast_2x_tpot_ms_graph_b1_d0"), tg10 = T("forecast_10x_tpot_ms_graph_b1_d0");
    fprintf(out, "**A faster GPU (mistake #14).** ");
    if (isnan(te) || isnan(te2) || isnan(te10) || isnan(tg) || isnan(tg2) || isnan(tg10)) {
        fprintf(out, "Not run (make day11): its timeline model replays the steps on a faster GPU.\n\n");
        return;
    }
    fprintf(out, "day11's timeline model replays this GPU's steps on one 2× and 10× faster (bandwidth, peak and each "
                 "kernel's fixed cost; the same host). The emulated HF eager step: %s ms measured, %s ms on 2×, %s ms on "
                 "10× (×%s): its host's launches set it. The graph step: %s ms, %s ms, %s ms (×%s): it follows the "
                 "GPU. A faster GPU shortens what the GPU does, not what the host does.\n\n", num(te), num(te2),
            num(te10), num(te / te10), num(tg), num(tg2), num(tg10), num(tg / tg10));
}

/* Seed 004's third trap, "profile the workload you serve": the table's numbers come from one
 * configuration (batch 1, eager, the dispatcher); batch 32's profile differs, in day11's rows. */
static void workload_you_serve(void) {
    const double b1 = M(D("busy_eager_b1_d%.0f")), b32 = M(D("busy_eager_b32_d%.0f"));
    const double g1 = M(D("gpu_ms_per_step_eager_b1_d%.0f")), g32 = M(D("gpu_ms_per_step_eager_b32_d%.0f"));
    const double t1 = M(D("tpot_ms_eager_b1_d%.0f")), t32 = M(D("tpot_ms_eager_b32_d%.0f"));
    fprintf(out, "**Profile the workload you serve (seed 004's third trap).** The table's profile (kernels, shares, busy "
                 "ratio, gaps) comes from one configuration: batch 1, the eager step, the dispatcher at a median of "
                 "%s µs (day10 profiles it; day11 measures the rest). ", num(dispatch_us()));
    if (isnan(b1) || isnan(b32) || isnan(g1) || isnan(g32) || isnan(t1) || isnan(t32)) {
        fprintf(out, "Batch 32's profile: not run (make day11).\n\n");
        return;
    }
    fprintf(out, "A server runs many requests at once, and at batch 32 the same step profiles otherwise (day11): "
                 "the GPU time per step goes from %s to %s ms (×%s), as the small kernels get real work; the busy "
                 "ratio from %s%% to %s%%; the step itself from %s to %s ms (×%s). The top kernels at batch 32: "
                 "`bin/day10_profiler --batch 32`.\n\n", num(g1), num(g32), num(g32 / g1), num(b1), num(b32), num(t1),
            num(t32), num(t32 / t1));
}

/* ---- beyond the week: one kernel per step (day09's section 8) ----------------------------- */
/* Persistent mode beside the loop's step 2 (graph): its TPOT and ratio by day09's protocol, bare
 * C and with the dispatcher, and what it removed, as measured: kernels per step (day09, as
 * launched) and the busy ratio (day11, batch 1, no dispatcher). Not run: day09's reason
 * (persistent_not_run), or which day to run. */
static void beyond_the_week(void) {
    fprintf(out, "**Beyond the week: one kernel per step.** Not one of the lesson's four modes: `persistent` runs the "
                 "whole decode step as one kernel resident on every SM, each block waiting only for the tiles it reads "
                 "(day09's section 8). ");
    const Row *no = rows_find(rows, nrows, NULL, "persistent_not_run", NULL);
    if (!got("tpot_ms_persistent")) {
        if (no) fprintf(out, "Not run (day09): %s\n\n", no->note);
        else fprintf(out, "TPOT %s.\n\n", cell(M("tpot_ms_persistent"), "tpot_ms_persistent", "ms", "day09"));
        return;
    }
    const char *dp = D("tpot_ms_persistent_d%.0f"), *dg = D("tpot_ms_graph_d%.0f");
    const double p = M("tpot_ms_persistent"), g = M("tpot_ms_graph");
    fprintf(out, "TPOT %s, %s the floor, against graph's %s", cell(p, "tpot_ms_persistent", "ms", "day09"),
            cell(M("ratio_persistent"), "ratio_persistent", "x", "day09"), cell(g, "tpot_ms_graph", "ms", "day09"));
    if (isfinite(p / g)) fprintf(out, " (%s%s%%)", p >= g ? "+" : "", num(100 * (p / g - 1)));
    fprintf(out, ", bare C launches; with the dispatcher %s against graph's %s (step 2). ", cell(M(dp), dp, "ms", "day09"),
            cell(M(dg), dg, "ms", "day09"));
    fprintf(out, "What it removed, measured: kernels per step, each a boundary the next kernel waits at, %s → %s; busy "
                 "ratio, bare C, batch 1: %s against graph's %s (day11).\n\n",
            cell(M("kernels_graph"), "kernels_graph", "", "day09"), cell(M("kernels_persistent"), "kernels_persistent", "", "day09"),
            cell(M("busy_persistent_b1_d0"), "busy_persistent_b1_d0", "%", "day11"),
            cell(M("busy_graph_b1_d0"), "busy_graph_b1_d0", "%", "day11"));
}

/* ---- your PyTorch run: bin/trace_stats --rows, beside the kit's values ------------------
 * One line per measure: the kit's row (its emulated HF eager step, batch 1), the row of the
 * student's run (day "trace", written by tools/torch_decode.py through bin/trace_stats), and
 * where the two differ and why. That last cell starts with the difference computed from the
 * two rows; a line's `why`, once a run of both on one GPU has shown the cause, adds the
 * sentence that explains it, computed from the rows as the table's why_* functions are (NULL:
 * the difference alone). The values that need the step timed without the profiler say how to
 * get it when it is missing; the others, "—" (not measured: the row's note says why). */
typedef void (*WhyPair)(const Row *kit, const Row *yours, char *cell);   /* add()s clauses to cell */

static const char TORCH_DECODE[] = "tools/torch_decode.py";

/* "+3.1 points" for two shares, "1.98× the kit's" for two amounts of one unit; nothing else. */
static void difference(const Row *kit, const Row *yours, char *cell) {
    if (!kit || !yours || strcmp(kit->unit, yours->unit)) return;
    if (!strcmp(kit->unit, "%")) add(cell, "%s%s points", yours->measured >= kit->measured ? "+" : "",
                                     num(yours->measured - kit->measured));
    else if (kit->measured > 0) add(cell, "%s× the kit's", num(yours->measured / kit->measured));
}

/* The "why" of a line where the two differ, computed from the rows. */
static const char *note_tail(const Row *r) {   /* a note's last clause: "before the launch of aten::..." */
    const char *semi = strrchr(r->note, ';');
    return semi ? semi + 2 : r->note;
}
/* A step's time: one long host pause a step in your run that the emulated dispatcher never
 * draws (trace_longest_pause_us, where it ends), and the rest of the step against the kit's;
 * else the host time per launch call each side. */
static void why_step(const Row *kit, const Row *yours, char *cell) {
    const Row *pause = got("trace_longest_pause_us"), *launches = got("trace_launches_per_step");
    const Row *kl = got(D("launches_per_step_eager_b1_d%.0f"));
    const double pause_ms = pause ? pause->measured / 1e3 : 0;
    if (pause_ms > 0.2 * yours->measured)
        add(cell, "one host pause of %s ms a step in your run (`trace_longest_pause_us`, %s), which the emulated "
                  "dispatcher never draws; the rest of your step, %s ms, is %s× the kit's", num(pause_ms),
            note_tail(pause), num(yours->measured - pause_ms), num((yours->measured - pause_ms) / kit->measured));
    else if (launches && kl && launches->measured > 0 && kl->measured > 0)
        add(cell, "host time per launch call (the step ÷ its launch calls): yours %s µs, the kit's %s µs",
            num(1e3 * yours->measured / launches->measured), num(1e3 * kit->measured / kl->measured));
}
/* A share of the step: the same kernels' time over steps of different lengths (the steps
 * timed without the profiler, or, for the traced timeline's ratio, under it). */
static void why_busy(const Row *kit, const Row *yours, char *cell) {
    const int traced = !strcmp(yours->key, "trace_busy");
    const Row *kg = got(D("gpu_ms_per_step_eager_b1_d%.0f")), *yg = got("trace_gpu_ms_per_step");
    const Row *kt = traced ? got("tpot_ms_traced") : got(D("tpot_ms_eager_b1_d%.0f"));
    const Row *yt = got(traced ? "trace_tpot_ms_traced" : "trace_tpot_ms_untraced");
    if (!kg || !yg || !kt || !yt || kt->measured <= 0 || kg->measured <= 0) return;
    const double gpu = yg->measured / kg->measured, step = yt->measured / kt->measured;
    add(cell, "kernel time %s ms a step, %s× the kit's, over a%s step %s× the kit's: the %s sets the difference",
        num(yg->measured), num(gpu), traced ? " traced" : "", num(step),
        fabs(log(step)) > fabs(log(gpu)) ? "step's length" : "kernel time");
}
/* The tracer's share: its cost per launch over a step of another length. */
static void why_tracer(const Row *kit, const Row *yours, char *cell) {
    const Row *kt = got(D("tpot_ms_eager_b1_d%.0f")), *yt = got("trace_tpot_ms_untraced");
    if (kt && yt && kt->measured > 0 && fabs(yt->measured / kt->measured - 1) > 0.2)
        add(cell, "a share of a step %s× the kit's", num(yt->measured / kt->measured));
}
/* The tracer's cost per launch: torch.profiler records the aten ops too. */
static void why_tracer_launch(const Row *kit, const Row *yours, char *cell) {
    const Row *r = got("trace_host_ranges_per_step"), *l = got("trace_launches_per_step");
    if (r && l && l->measured > 0)
        add(cell, "your profiler records %s host ranges a step besides CUPTI's records (`trace_host_ranges_per_step`: "
                  "the aten ops and annotations), %s a launch; the kit's tracer here records CUPTI's alone",
            num(r->measured), num(r->measured / l->measured));
}
/* Counts: the same list of kernels, or another one than the kit mirrors. */
static void why_count(const Row *kit, const Row *yours, char *cell) {
    if (kit->measured == yours->measured)
        add(cell, "the same: the kit's eager step launches the kernels of " EAGER_MIRRORS " one for one");
    else add(cell, "the kit's eager step mirrors " EAGER_MIRRORS "; your versions (above) launch another list");
}
/* A top kernel: the same name at the same rank, or not. */
static void why_rank(const Row *kit, const Row *yours, char *cell) {
    const size_t nk = strcspn(kit->note, " "), ny = strcspn(yours->note, " ");
    if (nk == ny && !strncmp(kit->note, yours->note, nk))
        add(cell, "the same cuBLAS kernel at the same rank: the kit's GEMMs are PyTorch's; its share moves with the "
                  "kernel time below");
    else add(cell, "another kernel at this rank");
}
/* The kernel time: the GEMMs are the same kernels, the elementwise ones are the kit's own. */
static void why_gpu_time(const Row *kit, const Row *yours, char *cell) {
    const Row *k1 = got("top1_share"), *y1 = got("trace_top1_share");
    if (k1 && y1 && !strncmp(k1->note, y1->note, strcspn(y1->note, " ")))
        add(cell, "the GEMMs are the same cuBLAS kernels; the rest are the kit's own kernels of PyTorch's classes "
                  "(elementwise, copy, reduce, cat) and its attention");
}
/* The gaps: drawn from a distribution against your host's own. */
static void why_gaps(const Row *kit, const Row *yours, char *cell) {
    const Row *yd = got("trace_dispatch_us");
    if (yd)
        add(cell, "the kit draws each launch's host time from the fixture trace's spread at a median of %s µs; yours "
                  "is your host's (`trace_dispatch_us` %s µs)", num(dispatch_us()), num(yd->measured));
}

/* A row of the student's run that needed --tpot-ms and did not get it: absent (an older
 * bin/trace_stats) or "-" with "no --tpot-ms" in its note. */
static int no_tpot(const char *key) {
    const Row *r = rows_find(rows, nrows, "trace", key, NULL);
    return !r || (isnan(r->measured) && strstr(r->note, "no --tpot-ms"));
}

static void your_pytorch_run(void) {
    static const struct { const char *item, *day, *kit, *yours; int needs_tpot; WhyPair why; } lines[] = {
        {"Decode step (TPOT), timed without a profiler", "day11", "tpot_ms_eager_b1_d%.0f", "trace_tpot_ms_untraced", 1, why_step},
        {"Decode step under the profiler", "day10", "tpot_ms_traced", "trace_tpot_ms_traced", 0, why_step},
        {"The profiler's cost (traced step ÷ untraced − 1)", "day10", "profiler_overhead_pct", "trace_tracer_pct", 1, why_tracer},
        {"The profiler's cost per launch (the kit's: bare C launches)", "day11", "tracer_us_per_launch",
         "trace_tracer_us_per_launch", 1, why_tracer_launch},
        {"GPU busy ratio of the step as it runs (kernel time ÷ untraced TPOT)", "day11", "busy_eager_b1_d%.0f",
         "trace_busy_untraced", 1, why_busy},
        {"Kernels per step", "day10", "kernels_per_step", "trace_kernels_per_step", 0, why_count},
        {"Launch calls per step", "day11", "launches_per_step_eager_b1_d%.0f", "trace_launches_per_step", 0, why_count},
        {"Linear layers per step", "day10", "gemms_per_step", "trace_linear_per_step", 0, why_count},
        {"Top 1 kernel / share", "day10", "top1_share", "trace_top1_share", 0, why_rank},
        {"Top 2 kernel / share", "day10", "top2_share", "trace_top2_share", 0, why_rank},
        {"Top 3 kernel / share", "day10", "top3_share", "trace_top3_share", 0, why_rank},
        {"Kernel time per step (overlaps merged)", "day11", "gpu_ms_per_step_eager_b1_d%.0f", "trace_gpu_ms_per_step", 0, why_gpu_time},
        {"GPU busy ratio on the traced timeline (union ÷ span)", "day11", "busy_traced_eager_b1_d%.0f", "trace_busy", 0, why_busy},
        {"Gaps per step", "day11", "gaps_per_step_eager_b1_d%.0f", "trace_gaps_per_step", 0, NULL},
        {"Typical gap (median)", "day11", "gap_median_us_eager_b1_d%.0f", "trace_gap_median_us", 0, why_gaps},
        {"Gap p90", "day11", "gap_p90_us_eager_b1_d%.0f", "trace_gap_p90_us", 0, why_gaps},
        {"Host-bound gap time (whole gaps)", "day11", "host_bound_eager_b1_d%.0f", "trace_host_bound_gaps", 0, NULL},
        {"Host-bound gap time (only the part before the launch call began)", NULL, NULL, "trace_host_bound", 0, NULL},
        {"Launch call", "day11", "launch_api_us_eager_b1_d%.0f", "trace_launch_api_us", 0, NULL},
        {"Host time from one launch call to the next", NULL, NULL, "trace_cpu_per_launch_us", 0, NULL},
        {"Host time per launch beyond the call (`--dispatch-us`, the median)", "day11", "dispatch_median_us",
         "trace_dispatch_us", 0, NULL},
        {"The longest host pause a step", NULL, NULL, "trace_longest_pause_us", 0, NULL},
    };
    const Row *steps = got("trace_steps");
    fprintf(out, "## Your PyTorch run\n\n");
    if (!steps) {
        fprintf(out, "Not run: `python3 %s` (README.md, \"Your own PyTorch run\") times Hugging Face's own decode step "
                     "without a profiler, profiles it with torch.profiler and reads the trace with `bin/trace_stats`, "
                     "so its numbers stand here beside the kit's. The kit's eager step mirrors " EAGER_MIRRORS ".\n\n",
                TORCH_DECODE);
        return;
    }
    fprintf(out, "Your run: %s; read by `bin/trace_stats --rows` with the definitions and the code of day10 and day11. "
                 "The kit's eager step mirrors the decode step of " EAGER_MIRRORS ", kernel for kernel (the course's "
                 "fixture trace); other versions may launch other kernels. The kit's column is its emulated HF eager "
                 "decode (batch 1, a host busy-wait per launch with a median of %s µs): where the two differ, the "
                 "emulated dispatcher is not your run's (`--dispatch-from` your trace draws from it instead). The busy ratio of the step as it runs divides the kernel time per step by the "
                 "step timed without a profiler (`%s` times it the lesson's bench() way and passes it as "
                 "`--tpot-ms`); the one on the traced timeline divides by a step the profiler slowed down.\n\n"
                 "| measure | the kit (emulated HF eager, batch 1) | your PyTorch run | where they differ and why |\n"
                 "|---|---|---|---|\n", steps->note, num(dispatch_us()), TORCH_DECODE);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const Row *rs[2] = {lines[i].kit ? got(D(lines[i].kit)) : NULL, got(lines[i].yours)};
        char cells[2][640], part[64], why[640] = "";
        const Row *raw[2] = {lines[i].kit ? rows_find(rows, nrows, NULL, D(lines[i].kit), NULL) : NULL,
                             rows_find(rows, nrows, "trace", lines[i].yours, NULL)};
        for (int j = 0; j < 2; j++) {
            if (rs[j] && strstr(rs[j]->key, "_share")) top_cell(rs[j], cells[j], sizeof cells[j], part);
            else if (rs[j]) snprintf(cells[j], sizeof cells[j], "%s", with_unit(rs[j]->measured, rs[j]->unit));
            else if (raw[j] && isinf(raw[j]->measured)) snprintf(cells[j], sizeof cells[j], "%s", invalid(raw[j]->measured));
            else if (j == 0 && lines[i].day) snprintf(cells[j], sizeof cells[j], "not run (make %s)", lines[i].day);
            else if (j == 1 && lines[i].needs_tpot && no_tpot(lines[i].yours))
                snprintf(cells[j], sizeof cells[j], "not measured (run %s)", TORCH_DECODE);
            else snprintf(cells[j], sizeof cells[j], "—");
        }
        difference(rs[0], rs[1], why);
        if (lines[i].why && rs[0] && rs[1]) lines[i].why(rs[0], rs[1], why);
        fprintf(out, "| %s | %s | %s | %s |\n", lines[i].item, cells[0], cells[1], *why ? why : "—");
    }
    if (got("trace_dispatch_us"))
        fprintf(out, "\nTo emulate your run's host cost on the kit: `bin/day09_ttft_tpot --dispatch-us %.0f` and "
                     "`bin/day11_gaps --dispatch-us %.0f`, then `make day12`.\n",
                M("trace_dispatch_us"), M("trace_dispatch_us"));
    fprintf(out, "\n");
}

/* ---- the page ----------------------------------------------------------------------------- */
void report_write(const char *results) {
    snprintf(dir, sizeof dir, "%s", results);

    char rows_path[4200], report_path[4200];
    snprintf(rows_path, sizeof rows_path, "%s/rows.tsv", dir);
    snprintf(report_path, sizeof report_path, "%s/REPORT.md", dir);
    nrows = rows_read(rows_path, &rows);
    if (!nrows) printf("no rows in %s yet: the report will say which days to run\n", rows_path);
    forecast_open();
    out = fopen(report_path, "w");
    if (!out) die("cannot write %s; check that the folder %s exists and is writable (or set KIT_RESULTS)",
                  report_path, dir);

    const Row *gpu = got("gpu"), *load = got("load_ms");   /* gpu's note: "name, driver x, runtime y" */
    fprintf(out, "# Week 2 report: theory against measurement%s%.*s\n\n", gpu ? " on " : "",
            gpu ? (int)strcspn(gpu->note, ",") : 0, gpu ? gpu->note : "");
    fprintf(out, "kit version %s\n\n", KIT_VERSION);
    fprintf(out, "TinyLlama-1.1B in fp16, decode at batch 1 unless marked. *Theory* is week 1's arithmetic for "
                 "the GPU at hand (weight bytes ÷ bandwidth, the datasheet peak, the ridge point); *the lesson* "
                 "is what the course expected on a Colab T4 under Hugging Face eager. Made by bin/day12_report "
                 "from %d rows of rows.tsv.", nrows);
    if (load && strstr(load->note, "synthetic"))
        fprintf(out, " Weights: synthetic (TinyLlama's exact shapes, seeded values): every byte, kernel and "
                     "time is real, only the generated text is not.");
    for (int i = 0; i < nrows; i++) {   /* KIT_GPU=t4 (make test-gpu-t4) tags every row it made */
        const char *tag = strstr(rows[i].note, "emulated T4 path on ");
        if (tag) {
            fprintf(out, "\n\n**%s**: the T4's code paths and limits, run on another GPU.", tag);
            break;
        }
    }
    fprintf(out, "\n\n## The one-page table\n\n");
    int missing = write_table();
    fprintf(out, "\nThe deliverable of the week: the lesson's template with the right-hand columns filled. "
                 "It is also the shape of every later optimisation report — one column before, one after, "
                 "one for why.\n\n## Charts\n\n");
    chart_tpot_modes();
    chart_busy();
    chart_gaps();
    chart_sweep();
    timelines();
    chart_parts();
    experiment_log();
    faster_gpu();
    workload_you_serve();
    beyond_the_week();
    your_pytorch_run();
    fclose(out);
    printf("report=%s items=%d not_run=%d rows=%d\n", report_path, N_ITEMS, missing, nrows);
    free(rows);
    free(frows);
    rows = NULL, nrows = 0, frows = NULL, nfrows = 0;
}
