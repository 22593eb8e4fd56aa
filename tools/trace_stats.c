/* trace_stats: the lesson's numbers of YOUR PyTorch run, read off its torch.profiler trace.
 *
 *   bin/trace_stats [--rows] [--tpot-ms MS] [--label TEXT] FILE.json[.gz]
 *
 * FILE is what torch.profiler's export_chrome_trace wrote (Kineto's JSON, gzipped or not;
 * tools/torch_decode.py makes one, times the step without the profiler and calls this with
 * both), or one of the kit's own results/trace_*.json. The numbers are the ones day10 and day11 print for the kit's C
 * engine, with the same definitions and the same code (common/measure/trace.c's window analysis),
 * so the two can sit side by side:
 *   - one line per ProfilerStep (step=N ...), then the median over the steps, one key a
 *     line: kernels, launches (launch calls), linear (aten::linear ops), busy (0..1),
 *     span_us, gpu_us (kernel time, overlaps merged), gaps, gap_median_us, gap_p90_us,
 *     host_bound (the share of gap time before the next launch call had even begun),
 *     host_bound_gaps (day11's whole-gap share), cpu_per_launch_us, launch_call_us,
 *     dispatch_us;
 *   - top1..3: the kernels with the most GPU time, their share, and the model part guessed
 *     from the aten op that launched them (linear / attn / norm / elementwise);
 *   - dispatch_us: the host time per launch beyond the launch call itself. Pass it to the
 *     kit (bin/tinyllama --dispatch-us N, the busy-wait day11 uses) to emulate this run's
 *     Python + dispatcher cost on the C engine, or pass the trace itself (--dispatch-from
 *     FILE) to draw each wait from its whole spread; --dispatch-table prints that spread as
 *     the C table the kit's built-in one is (common/gpu/dispatch.c);
 *   - the step as it runs against the step under the profiler, day10's section 5 and day11's
 *     section 4 for a torch run. A trace holds only traced steps, so the untraced TPOT comes
 *     from outside: --tpot-ms X, the decode step timed without the profiler (the lesson's
 *     bench(): synchronised, after warm-up, the median; tools/torch_decode.py measures it and
 *     passes it here). Then
 *       tpot_ms_traced        the median CPU-side ProfilerStep window: one turn of the loop
 *                             (the step, its argmax and .item()) from prof.step() to the next,
 *                             under the profiler
 *       busy_untraced         kernel time per step (gpu_us, overlaps merged) / X: the busy
 *                             ratio as the kit defines it, of each millisecond a user waits for a
 *                             token, how much had a kernel running (busy= is the traced
 *                             timeline's union / span, which divides by the tracer's slowness)
 *       tracer_pct            tpot_ms_traced / X - 1, day11's tracer_pct_full_* and day10's
 *                             profiler_overhead_pct: what the profiler added to each step
 *       tracer_us_per_launch  (tpot_ms_traced - X) / launch calls per step, day11's
 *                             tracer_us_per_launch
 *     An X below the kernel time per step is impossible (a step cannot end before its kernels
 *     do; busy would pass 100%): an error naming both. Without --tpot-ms these are "-" (not
 *     measured), and tpot_ms_traced is still read. --label TEXT (what made the run, e.g. "torch
 *     2.11, transformers 5.17, NVIDIA H200") goes into the rows' notes, so day12 can say it.
 * Definitions in full: common/measure/trace_steps.h. --rows also writes them to results/rows.tsv
 * (day "trace", keys trace_*), and day12's report shows them beside the kit's values.
 *
 * A value the trace cannot give is not measured, never 0: "-" with the reason on its median
 * line (host_bound=- (not measured: no cuda_runtime/cuda_driver launch call ...)), and "-"
 * in rows.tsv, which day12 shows as not measured. What looks wrong but leaves numbers
 * (overlapping step windows, absurd times) is one "warning:" line on stderr, naming it.
 *
 * Bad input (not JSON, cut short, an event without ts/dur/correlation, no kernels, no kernel
 * inside any ProfilerStep) is one "error:" sentence naming the file and event, exit 1. Event
 * kinds not used here (flows, metadata, memcpy, python_function, ...) are skipped and
 * counted on the events= line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "gpu/dispatch.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"
#include "util.h"

static const char USAGE[] =
    "usage: bin/trace_stats [--rows] [--tpot-ms MS] [--label TEXT] FILE.json[.gz]\n"
    "       bin/trace_stats --dispatch-table FILE.json[.gz]\n"
    "  FILE          a torch.profiler trace (prof.export_chrome_trace) or the kit's results/trace_*.json\n"
    "  --rows        also write the medians to results/rows.tsv (day \"trace\") for day12's report\n"
    "  --tpot-ms MS  the decode step timed without the profiler (tools/torch_decode.py prints it as\n"
    "                tpot_ms=): gives the busy ratio of the step as it runs and the tracer's cost\n"
    "  --label TEXT  what made the run (\"torch 2.11, transformers 5.17, NVIDIA H200\"), kept in the rows' notes\n"
    "  --dispatch-table  print only the distribution of the host time between launch calls as the\n"
    "                C table of common/gpu/dispatch.c (what the kit's emulated dispatcher draws from)\n"
    "Prints key=value lines per ProfilerStep and their medians; errors: one line, exit 1.\n";

/* The label goes into every row's note (255 characters, with the trace's own words). */
enum { LABEL_MAX = 120 };

/* " key=v" (sep first), "-" for a value not defined in the window. */
static void value(const char *sep, const char *key, double v) {
    if (isnan(v)) printf("%s%s=-", sep, key);
    else printf("%s%s=%.4g", sep, key, v);
}

/* Text from the trace inside quotes, its own quotes as '. (The reader and trace_stats have
 * made it one line: rows_one_line.) */
static void quoted(const char *text) {
    printf("\"");
    for (const char *p = text; *p; p++) printf(*p == '"' ? "'" : "%c", *p);
    printf("\"");
}

/* A kernel name as one key=value token: quoted when it holds a space or a quote. */
static void name_value(const char *key, const char *name) {
    if (!strpbrk(name, " \"")) { printf(" %s=%s", key, name); return; }
    printf(" %s=", key);
    quoted(name);
}

typedef struct { TraceStat stat; const char *key, *unit; double scale; } RowSpec;
static const RowSpec ROWS[] = {
    {TS_KERNELS, "trace_kernels_per_step", "count", 1}, {TS_LAUNCHES, "trace_launches_per_step", "count", 1},
    {TS_LINEAR, "trace_linear_per_step", "count", 1}, {TS_BUSY, "trace_busy", "%", 100},
    {TS_GPU_US, "trace_gpu_ms_per_step", "ms", 1e-3}, {TS_GAPS, "trace_gaps_per_step", "count", 1},
    {TS_GAP_MEDIAN_US, "trace_gap_median_us", "us", 1}, {TS_GAP_P90_US, "trace_gap_p90_us", "us", 1},
    {TS_HOST_BOUND, "trace_host_bound", "%", 100}, {TS_HOST_BOUND_GAPS, "trace_host_bound_gaps", "%", 100},
    {TS_CPU_PER_LAUNCH_US, "trace_cpu_per_launch_us", "us", 1}, {TS_LAUNCH_CALL_US, "trace_launch_api_us", "us", 1},
    {TS_DISPATCH_US, "trace_dispatch_us", "us", 1}, {TS_LONGEST_PAUSE_US, "trace_longest_pause_us", "us", 1},
    {TS_HOST_RANGES, "trace_host_ranges_per_step", "count", 1},
};

/* ---- the step as it runs, against the step under the profiler ----------------------------
 * day10 and day11 time the kit's step untraced and traced with one clock; a torch trace has
 * only the traced steps, so the untraced TPOT is given (--tpot-ms). NAN: not measured, and
 * why says why. */
typedef struct {
    double untraced_ms, traced_ms, busy, tracer_pct, tracer_us_per_launch;
    const char *why_untraced, *why_traced, *why_both;
} AsItRuns;

static const char NO_TPOT[] = "no --tpot-ms: tools/torch_decode.py times the step without the profiler and passes it";

/* Returns 0, or -1 with the sentence in err when the given TPOT is below the kernel time. */
static int as_it_runs(const TraceJson *tj, const TraceStats *s, double tpot_ms, AsItRuns *a, char *err, size_t cap) {
    *a = (AsItRuns){tpot_ms, NAN, NAN, NAN, NAN, NULL, NULL, NULL};
    /* One turn of the loop under the profiler: the CPU-side ProfilerStep range runs from one
     * prof.step() to the next, and the loop's .item() waits there for the step's kernels. */
    double *ms = xmalloc(sizeof(double) * (size_t)(tj->nsteps + 1));
    int n = 0;
    for (int i = 0; i < tj->nsteps; i++)
        if (tj->steps[i].has_cpu && tj->steps[i].cpu1 >= tj->steps[i].cpu0)
            ms[n++] = (tj->steps[i].cpu1 - tj->steps[i].cpu0) / 1e6;
    a->traced_ms = median_of(ms, n);
    free(ms);
    if (!tj->nsteps) a->why_traced = "the trace has no ProfilerStep marks: no step was timed under the profiler";
    else if (!n) a->why_traced = "no CPU-side ProfilerStep range (cat user_annotation) in the trace: the loop's turn "
                                 "under the profiler is not known";
    if (isnan(tpot_ms)) a->why_untraced = NO_TPOT;

    const double gpu_ms = s->median[TS_GPU_US] / 1e3, launches = s->median[TS_LAUNCHES];
    if (!isnan(tpot_ms) && tpot_ms < gpu_ms) {
        snprintf(err, cap, "--tpot-ms %g is less than the trace's kernel time per step, %.4g ms (gpu_us, kernel "
                           "intervals merged): a decode step cannot end before its kernels do (the busy ratio would be "
                           "%.0f%%); give the step timed without the profiler on the same GPU and model as the trace "
                           "(tools/torch_decode.py prints it as tpot_ms=)", tpot_ms, gpu_ms, 100 * gpu_ms / tpot_ms);
        return -1;
    }
    a->busy = gpu_ms / tpot_ms;
    a->tracer_pct = 100 * (a->traced_ms / tpot_ms - 1);
    a->tracer_us_per_launch = launches > 0 ? (a->traced_ms - tpot_ms) * 1e3 / launches : NAN;
    a->why_both = a->why_untraced ? a->why_untraced : a->why_traced;
    return 0;
}

/* "key=v", or "key=- (not measured: why)". */
static void line(const char *key, double v, const char *why) {
    value("", key, v);
    if (isnan(v)) printf(" (not measured: %s)", why ? why : "not defined in any step");
    printf("\n");
}

static void print_as_it_runs(const TraceStats *s, const AsItRuns *a) {
    printf("# the step as it runs: busy_untraced = kernel time per step / the TPOT timed without the profiler "
           "(--tpot-ms); the tracer's cost: one turn of the loop under the profiler (its CPU-side ProfilerStep) "
           "against that TPOT\n");
    line("tpot_ms_untraced", a->untraced_ms, a->why_untraced);
    line("tpot_ms_traced", a->traced_ms, a->why_traced);
    line("busy_untraced", a->busy, a->why_untraced);
    line("tracer_pct", a->tracer_pct, a->why_both);
    line("tracer_us_per_launch", a->tracer_us_per_launch,
         a->why_both ? a->why_both : "no launch call in the steps (launches=-): nothing to divide the cost by");
    if (a->traced_ms < s->median[TS_GPU_US] / 1e3)
        fprintf(stderr, "warning: the loop's turn under the profiler (tpot_ms_traced=%.4g) is shorter than its kernel "
                        "time (%.4g ms): the loop does not wait for its token (.item()) inside the step, so "
                        "tpot_ms_traced and the tracer's cost count the host's time alone\n",
                a->traced_ms, s->median[TS_GPU_US] / 1e3);
}

static void write_rows(const char *path, const TraceStats *s, const AsItRuns *a, const char *label) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char note[256];
    snprintf(note, sizeof note, "%s%s%s, median of %d %s", label ? label : "", label ? "; " : "", base, s->nsteps,
             strcmp(s->windows, "whole_trace") ? "ProfilerSteps" : "window (no ProfilerStep marks)");
    rows_write("trace", "trace_steps", NAN, s->nsteps, "count", note);
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        char why[512];   /* a value not measured is "-", rows.tsv's none, and its note says why */
        const char *reason = s->why[ROWS[i].stat];
        if (reason) snprintf(why, sizeof why, "%s; not measured: %s", note, reason);
        else if (ROWS[i].stat == TS_LONGEST_PAUSE_US) snprintf(why, sizeof why, "%s; %s", note, s->pause_op);
        rows_write("trace", ROWS[i].key, NAN, s->median[ROWS[i].stat] * ROWS[i].scale, ROWS[i].unit,
                   reason || ROWS[i].stat == TS_LONGEST_PAUSE_US ? why : note);
    }
    /* The step as it runs: day10's tpot_ms_untraced / tpot_ms_traced, day11's busy_* and tracer_* */
    const struct { const char *key, *unit, *how, *why; double v; } more[] = {
        {"trace_tpot_ms_untraced", "ms", "the decode step timed without the profiler (--tpot-ms)", a->why_untraced,
         a->untraced_ms},
        {"trace_tpot_ms_traced", "ms", "one turn of the loop under the profiler (CPU-side ProfilerStep)", a->why_traced,
         a->traced_ms},
        {"trace_busy_untraced", "%", "kernel time per step / untraced TPOT", a->why_untraced, 100 * a->busy},
        {"trace_tracer_pct", "%", "traced step / untraced TPOT - 1", a->why_both, a->tracer_pct},
        {"trace_tracer_us_per_launch", "us", "(traced step - untraced TPOT) / launch calls per step",
         a->why_both ? a->why_both : "no launch call in the steps", a->tracer_us_per_launch},
    };
    const int nmore = (int)(sizeof more / sizeof more[0]);
    for (int i = 0; i < nmore; i++) {
        char how[512];
        if (isnan(more[i].v)) snprintf(how, sizeof how, "%s; %s; not measured: %s", note, more[i].how, more[i].why);
        else snprintf(how, sizeof how, "%s; %s", note, more[i].how);
        rows_write("trace", more[i].key, NAN, more[i].v, more[i].unit, how);
    }
    for (int i = 0; i < s->ntop; i++) {
        char key[32];
        snprintf(key, sizeof key, "trace_top%d_share", i + 1);
        snprintf(note, sizeof note, "%s -> %s", s->top[i].name, s->top[i].parts);
        rows_write("trace", key, NAN, 100 * s->top[i].share, "%", note);
    }
    printf("rows=%s/rows.tsv day=trace rows=%d\n", results_dir(),
           1 + (int)(sizeof ROWS / sizeof ROWS[0]) + nmore + s->ntop);
}

/* --dispatch-table: the shape of the trace's host time between launch calls, as the C
 * initializer common/gpu/dispatch.c holds (gpu/dispatch.h: how it is measured and drawn). */
static int dispatch_table(const char *path) {
    DispatchShape s;
    char err[1024];
    if (dispatch_shape_from_trace(path, &s, err, sizeof err)) die("%s", err);
    printf("    /* %s: p90 %.2fx and mean %.2fx the median */\n", s.source, dispatch_quantile(&s, 90), dispatch_mean(&s));
    dispatch_print_table(&s);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = NULL, *label_arg = NULL;
    int rows = 0, ntraces = 0, table = 0;
    double tpot_ms = NAN;   /* stays NAN unless --tpot-ms is given */
    const ArgFlag flags[] = {
        {"--rows", ARG_FLAG, &rows, 0, 0, "also write results/rows.tsv"},
        {"--tpot-ms", ARG_REAL, &tpot_ms, 0.001, 60000,
         "the decode step in ms, timed without the profiler: tools/torch_decode.py prints it as tpot_ms="},
        {"--label", ARG_STRING, &label_arg, 0, 0, "what made the run, e.g. \"torch 2.11, transformers 5.17, NVIDIA H200\""},
        {"--dispatch-table", ARG_FLAG, &table, 0, 0, "print the dispatcher's table"},
        {0}};
    const ArgWords trace = {"trace", 1, 1, &path, &ntraces, 0};
    args_parse("trace_stats", USAGE, argc, argv, flags, &trace);
    if (table) return dispatch_table(path);
    char label[LABEL_MAX + 1];
    if (label_arg) {
        if (!*label_arg || strlen(label_arg) > LABEL_MAX)
            die("trace_stats: --label has %zu characters: give 1 to %d (it goes into each row's note)",
                strlen(label_arg), LABEL_MAX);
        snprintf(label, sizeof label, "%s", label_arg);
        rows_one_line(label);   /* a tab or newline would break rows.tsv and the key=value lines */
    }

    TraceJson tj;
    char err[512];
    if (trace_json_read(path, &tj, err, sizeof err)) die("%s", err);
    printf("trace=%s events=%ld kernel_events=%d call_events=%d cpu_ops=%ld skipped=%ld", path, tj.events, tj.t.nk,
           tj.t.napi, tj.cpu_ops, tj.skipped);
    if (tj.nskip) {
        char kinds[12 * 56] = "";
        for (int i = 0, n = 0; i < tj.nskip; i++)
            n += snprintf(kinds + n, sizeof kinds - n, "%s%s:%ld", i ? " " : "", tj.skip[i].kind, tj.skip[i].n);
        printf(" skipped_kinds=");
        quoted(kinds);
    }
    printf("\n");

    TraceStats s;
    if (trace_stats(&tj, &s, err, sizeof err)) die("%s: %s", path, err);
    AsItRuns a;
    if (as_it_runs(&tj, &s, tpot_ms, &a, err, sizeof err)) die("%s: %s", path, err);
    for (int i = 0; i < s.nwarnings; i++) fprintf(stderr, "warning: %s\n", s.warning[i]);
    if (s.warnings_left_out) fprintf(stderr, "warning: %d more like these\n", s.warnings_left_out);
    printf("steps=%d windows=%s linear_from=%s\n", s.nsteps, s.windows, s.linear_from);
    for (int i = 0; i < s.nsteps; i++) {
        if (s.step[i].number >= 0) printf("step=%ld", s.step[i].number);
        else printf("step=whole_trace");
        for (int k = 0; k < TS_COUNT; k++) value(" ", trace_stat_key(k), s.step[i].v[k]);
        printf("\n");
    }
    printf("# the median over %d %s:\n", s.nsteps, s.nsteps == 1 ? "window" : "steps");
    for (int k = 0; k < TS_COUNT; k++) {
        value("", trace_stat_key(k), s.median[k]);
        if (s.why[k]) printf(" (not measured: %s)", s.why[k]);
        else if (k == TS_LONGEST_PAUSE_US && s.pause_op[0]) printf(" (%s)", s.pause_op);
        printf("\n");
    }
    for (int i = 0; i < s.ntop; i++) {
        char key[32];
        snprintf(key, sizeof key, "top%d_share", i + 1);
        value("", key, 100 * s.top[i].share);
        snprintf(key, sizeof key, "top%d_name", i + 1);
        name_value(key, s.top[i].name);
        printf(" top%d_part=%s top%d_calls_per_step=%.4g\n", i + 1, s.top[i].parts, i + 1, s.top[i].calls_per_step);
    }
    print_as_it_runs(&s, &a);
    if (!isnan(s.median[TS_DISPATCH_US]))
        printf("# to emulate this run's host cost per launch on the kit: --dispatch-us %.0f (%.1f us from one launch "
               "call to the next, less the %.1f us call itself)\n", s.median[TS_DISPATCH_US],
               s.median[TS_CPU_PER_LAUNCH_US], s.median[TS_LAUNCH_CALL_US]);
    DispatchShape d;   /* the same host time, interval by interval: the distribution the kit can draw from */
    if (dispatch_shape_from(s.dispatch_us, s.n_dispatch, &d, err, sizeof err) == 0)
        printf("# or each wait drawn from its whole spread: --dispatch-from and this file (%d intervals between launch "
               "calls: median %.1f us, p90 %.1f us)\n", d.n, d.median_us, d.median_us * dispatch_quantile(&d, 90));
    if (rows) write_rows(path, &s, &a, label_arg ? label : NULL);
    trace_stats_free(&s);
    trace_json_free(&tj);
    return 0;
}
