/* dispatch: the emulated dispatcher's distribution, its draws and its wait (dispatch.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/dispatch.h"
#include "measure/stats.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"
#include "report/rows.h"
#include "util.h"

const double DISPATCH_PCT[DISPATCH_NQ] = {0,  1,  2,  3,  4,  5,  10, 15, 20, 25, 30,   35,   40,   45,  50,
                                          55, 60, 65, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 100};

/* The built-in shape. Where it came from: the course's fixture trace
 * ../shared/fixtures/torch-trace/trace_hf_eager_b1.json, torch.profiler's export_chrome_trace
 * of three decode steps of transformers' eager Llama at TinyLlama's shape (batch 1, fp16,
 * after a 200-token prompt; torch 2.11, transformers 5.17, one H200 and its host). The
 * definition: inside each ProfilerStep's CPU-side window (user_annotation), the launch calls
 * (cuda_runtime / cuda_driver cudaLaunchKernel*, cuLaunchKernel*: in this trace every one of
 * them launched a kernel) sorted by start; each interval = the next call's start - (this
 * call's start + its duration), the host's time from one launch to the next less the launch
 * call itself, which the kit's own launch call pays anyway; the three steps pooled: 2772
 * intervals. Median 13.9 us, p90 40.3 us (2.9x the median), mean 1.48x the median (1.49x as
 * the table below interpolates it), max 230 us (16.5x): most ops cost Python and the
 * dispatcher 7-20 us; 2-3% are the ~1 us between a split-K GEMM and its reduce kernel, two
 * launches of one cuBLAS call; the tail past 50 us is mostly the host work before cuDNN's
 * attention kernel and before some GEMMs (22 and 20 of each step's 52 such intervals). The
 * fixture's second trace, made on a slower host (trace_hf_eager_b1_host2.json.gz), has a
 * median of 31 us and nearly the same shape to p99 (p90 3.1x its median), with a few stalls
 * of milliseconds on top. Made by
 *
 *     bin/trace_stats --dispatch-table ../shared/fixtures/torch-trace/trace_hf_eager_b1.json
 *
 * which prints the lines below down to .n; tests/cpu/dispatch_table.sh holds this file to that
 * output, and tests/cpu/test_dispatch.c the numbers to the fixture. */
const DispatchShape DISPATCH_BUILTIN = {
    /* trace_hf_eager_b1.json: 2772 launch intervals in 3 ProfilerSteps, median 13.9 us: p90 2.89x and mean 1.49x the median */
    .q = {0.0645, 0.0870, 0.1200, 0.4995, 0.5128, 0.5312, 0.5647, 0.5891,     /* p0 p1 p2 p3 p4 p5 p10 p15 */
          0.6218, 0.6877, 0.7629, 0.8239, 0.8803, 0.9360, 1.0000, 1.0785,     /* p20 p25 p30 p35 p40 p45 p50 p55 */
          1.1704, 1.3370, 1.5454, 1.8063, 2.0238, 2.4419, 2.8893, 3.9485,     /* p60 p65 p70 p75 p80 p85 p90 p95 */
          5.3125, 6.8801, 8.3308, 13.4075, 16.4912},                          /* p97.5 p99 p99.5 p99.9 p100 */
    .median_us = 13.933, .n = 2772,
    .source = "built-in: torch.profiler trace of HF eager TinyLlama (torch 2.11, transformers 5.17), median 13.9 us",
};

/* ---- the distribution ------------------------------------------------------------------ */

double dispatch_quantile(const DispatchShape *s, double p) {
    if (!(p > 0)) return s->q[0];
    if (p >= 100) return s->q[DISPATCH_NQ - 1];
    int i = 0;
    while (DISPATCH_PCT[i + 1] < p) i++;   /* DISPATCH_PCT[i] < p <= DISPATCH_PCT[i + 1] */
    const double f = (p - DISPATCH_PCT[i]) / (DISPATCH_PCT[i + 1] - DISPATCH_PCT[i]);
    return s->q[i] + f * (s->q[i + 1] - s->q[i]);
}

/* Each segment between two stored quantiles holds its share of the draws spread evenly
 * (the inverse CDF is linear there): its mean is the middle of its two ends. */
double dispatch_mean(const DispatchShape *s) {
    double mean = 0;
    for (int i = 0; i + 1 < DISPATCH_NQ; i++)
        mean += (DISPATCH_PCT[i + 1] - DISPATCH_PCT[i]) / 100 * (s->q[i] + s->q[i + 1]) / 2;
    return mean;
}

double dispatch_sample(const DispatchShape *s, double median_us, double u) {
    if (!(median_us > 0)) return 0;
    const double us = median_us * dispatch_quantile(s, 100 * u);
    return us > 0 ? us : 0;
}

/* splitmix64 (Steele, Lea and Flood, 2014; the seeding generator of xoshiro): a counter
 * through a mixing function. Small, fast, and good enough to pick a quantile. */
uint64_t dispatch_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
double dispatch_uniform(uint64_t *state) { return (double)(dispatch_next(state) >> 11) * 0x1.0p-53; }

/* ---- a shape from intervals, from a trace ----------------------------------------------- */

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int dispatch_shape_from(double *v, int n, DispatchShape *out, char *err, size_t cap) {
    memset(out, 0, sizeof *out);
    if (n < DISPATCH_MIN_INTERVALS) {
        snprintf(err, cap, "%d interval%s between launch calls (cuda_runtime/cuda_driver cudaLaunchKernel*, "
                 "cuLaunchKernel*) inside the profiled steps, too few for a distribution (at least %d; a decode step "
                 "has hundreds): profile whole decode steps with their CPU side (ProfilerActivity.CPU and CUDA)",
                 n, n == 1 ? "" : "s", DISPATCH_MIN_INTERVALS);
        return -1;
    }
    for (int i = 0; i < n; i++) if (!(v[i] > 0)) v[i] = 0;   /* overlapping calls of two threads; NAN too */
    qsort(v, n, sizeof(double), by_value);
    const double median = percentile(v, n, 50);
    if (!(median > 0)) {
        snprintf(err, cap, "the median host time between launch calls is 0 us (%d intervals): nothing to scale a "
                 "dispatcher to", n);
        return -1;
    }
    for (int i = 0; i < DISPATCH_NQ; i++)   /* p50's exactly 1, whatever the division rounded */
        out->q[i] = DISPATCH_PCT[i] == 50 ? 1 : percentile(v, n, DISPATCH_PCT[i]) / median;
    out->median_us = median;
    out->n = n;
    return 0;
}

int dispatch_shape_from_trace(const char *path, DispatchShape *out, char *err, size_t cap) {
    TraceJson tj;
    TraceStats s;
    char why[512];
    memset(out, 0, sizeof *out);
    if (trace_json_read(path, &tj, err, cap)) return -1;   /* its sentence names the file */
    int rc = trace_stats(&tj, &s, why, sizeof why);
    if (rc) snprintf(err, cap, "%s: %s", path, why);
    else if ((rc = dispatch_shape_from(s.dispatch_us, s.n_dispatch, out, why, sizeof why)))
        snprintf(err, cap, "%s: %s", path, why);
    else {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        snprintf(out->source, sizeof out->source, "%.80s: %d launch intervals in %d %s, median %.1f us", base,
                 out->n, s.nsteps, tj.nsteps ? "ProfilerSteps" : "window", out->median_us);
        rows_one_line(out->source);   /* a file name goes into notes and key=value lines */
    }
    trace_stats_free(&s);
    trace_json_free(&tj);
    return rc ? -1 : 0;
}

void dispatch_print_table(const DispatchShape *s) {
    enum { PER_LINE = 8 };
    for (int i = 0; i < DISPATCH_NQ; i += PER_LINE) {
        char values[160] = "", pcts[96] = "";
        size_t nv = 0, np = 0;
        for (int j = i; j < i + PER_LINE && j < DISPATCH_NQ; j++) {
            const char *sep = j == DISPATCH_NQ - 1 ? "}," : j + 1 < i + PER_LINE ? ", " : ",";
            nv += (size_t)snprintf(values + nv, sizeof values - nv, "%.4f%s", s->q[j], sep);
            np += (size_t)snprintf(pcts + np, sizeof pcts - np, "%sp%g", j > i ? " " : "", DISPATCH_PCT[j]);
        }
        printf("%s%-66s  /* %s */\n", i ? "          " : "    .q = {", values, pcts);
    }
    printf("    .median_us = %.3f, .n = %d,\n", s->median_us, s->n);
}

/* ---- the process's dispatcher ------------------------------------------------------------ */

static DispatchShape g_shape;
static int g_shape_set;
static uint64_t g_state = DISPATCH_SEED;

const DispatchShape *dispatch_shape(void) { return g_shape_set ? &g_shape : &DISPATCH_BUILTIN; }
void dispatch_use(const DispatchShape *s) {
    g_shape_set = s != NULL;
    if (s) g_shape = *s;
}
void dispatch_seed(uint64_t seed) { g_state = seed; }
double dispatch_draw(double median_us) {
    if (!(median_us > 0)) return 0;
    return dispatch_sample(dispatch_shape(), median_us, dispatch_uniform(&g_state));
}

double dispatch_wait(double median_us) {
    if (!(median_us > 0)) return 0;
    const double us = dispatch_draw(median_us);
    const uint64_t until = now_ns() + (uint64_t)(us * 1e3);
    while (now_ns() < until) {}
    return us;
}

double dispatch_setup(const char *prog, double median_us, const char *trace, double default_us) {
    if (trace) {
        DispatchShape s;
        char err[1024];
        if (dispatch_shape_from_trace(trace, &s, err, sizeof err))
            die("%s: --dispatch-from %s", prog, err);
        dispatch_use(&s);
        return isnan(median_us) ? s.median_us : median_us;
    }
    return isnan(median_us) ? default_us : median_us;
}
