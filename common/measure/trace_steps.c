/* trace_steps: per-step numbers of a Chrome trace and their medians (trace_steps.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/profile_table.h"
#include "measure/stats.h"
#include "measure/trace.h"
#include "measure/trace_steps.h"
#include "report/rows.h"
#include "util.h"

static const char *const keys[TS_COUNT] = {
    "kernels", "launches", "linear", "busy", "span_us", "gpu_us", "gaps", "gap_median_us",
    "gap_p90_us", "host_bound", "host_bound_gaps", "cpu_per_launch_us", "launch_call_us", "dispatch_us",
    "longest_pause_us", "host_ranges",
};
const char *trace_stat_key(TraceStat s) { return s >= 0 && s < TS_COUNT ? keys[s] : "?"; }

/* ---- a step's records, as a view into the sorted arrays ------------------------------- */

/* TKernel, TApi and TRange all begin with their uint64_t start: the first index with
 * start >= x in an array of n records of `size` bytes sorted by start. */
static int first_from(const void *base, int n, size_t size, uint64_t x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (*(const uint64_t *)((const char *)base + (size_t)mid * size) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}
static int first_after(const void *base, int n, size_t size, uint64_t x) {
    return x == UINT64_MAX ? n : first_from(base, n, size, x + 1);
}

/* The API calls by correlation id: where each lies in the array sorted by start. */
typedef struct { uint32_t corr; int at; } CallStart;
static int by_corr(const void *a, const void *b) {
    const CallStart *x = a, *y = b;
    return x->corr != y->corr ? (x->corr < y->corr ? -1 : 1) : x->at - y->at;
}
/* The call with this correlation id (the earliest, as trace_window's join takes), or -1. */
static int call_of(const CallStart *v, int n, uint32_t corr) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid].corr < corr) lo = mid + 1; else hi = mid;
    }
    return lo < n && v[lo].corr == corr ? v[lo].at : -1;
}

/* A step's records, as trace_window_host reads them: the kernels starting in [g0, g1] (a
 * slice of the sorted array), the host's ranges in [h0, h1] (a slice), and the API calls in
 * [h0, h1] together with the launch call of each of those kernels that lies outside them
 * (for the joins), copied into *calls_out, which the caller frees. Each step reads only
 * its own records: no pass over the whole trace per step. */
static Trace view(const Trace *t, const CallStart *calls, uint64_t g0, uint64_t g1, uint64_t h0, uint64_t h1,
                  TApi **calls_out) {
    Trace v = {0};
    int k0 = first_from(t->k, t->nk, sizeof(TKernel), g0), k1 = first_after(t->k, t->nk, sizeof(TKernel), g1);
    int i0 = first_from(t->api, t->napi, sizeof(TApi), h0), i1 = first_after(t->api, t->napi, sizeof(TApi), h1);
    int r0 = first_from(t->nvtx, t->nnvtx, sizeof(TRange), h0), r1 = first_after(t->nvtx, t->nnvtx, sizeof(TRange), h1);
    if (k1 < k0) k1 = k0;   /* an empty window (g1 < g0) */
    if (i1 < i0) i1 = i0;
    if (r1 < r0) r1 = r0;
    TApi *a = xmalloc(sizeof(TApi) * (size_t)(i1 - i0 + k1 - k0 + 1));
    int na = i1 - i0;
    if (na) memcpy(a, t->api + i0, sizeof(TApi) * (size_t)na);
    for (int i = k0; i < k1; i++) {
        int c = call_of(calls, t->napi, t->k[i].corr);
        if (c >= 0 && (c < i0 || c >= i1)) a[na++] = t->api[c];
    }
    v.nk = k1 - k0;        v.k = v.nk ? t->k + k0 : NULL;
    v.napi = na;           v.api = a;
    v.nnvtx = r1 - r0;     v.nvtx = v.nnvtx ? t->nvtx + r0 : NULL;
    *calls_out = a;
    return v;
}

/* ---- the top kernels over all steps ---------------------------------------------------- */

typedef struct { const char *name; double total_ns; int calls; unsigned parts; } NameSum;
typedef struct { NameSum *v; int n, cap; } NameSums;

static void add_names(NameSums *s, const TraceWindow *w, const ProfRow *rows) {
    for (int i = 0; i < w->n_names; i++) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 256;
            NameSum *grown = realloc(s->v, sizeof(NameSum) * (size_t)s->cap);
            if (!grown) die("trace: out of host memory at %d kernel names", s->n);
            s->v = grown;
        }
        s->v[s->n++] = (NameSum){w->names[i].name, w->names[i].total_ns, w->names[i].calls, rows[i].parts};
    }
}
static int by_name(const void *a, const void *b) { return strcmp(((const NameSum *)a)->name, ((const NameSum *)b)->name); }
static int by_total_desc(const void *a, const void *b) {
    const NameSum *x = a, *y = b;
    return x->total_ns != y->total_ns ? (x->total_ns > y->total_ns ? -1 : 1) : strcmp(x->name, y->name);
}

static void top_kernels(NameSums *s, TraceStats *out) {
    if (s->n > 1) qsort(s->v, s->n, sizeof(NameSum), by_name);
    int m = 0;
    double all = 0;
    for (int i = 0; i < s->n; i++) {
        all += s->v[i].total_ns;
        if (m && strcmp(s->v[m - 1].name, s->v[i].name) == 0) {
            s->v[m - 1].total_ns += s->v[i].total_ns;
            s->v[m - 1].calls += s->v[i].calls;
            s->v[m - 1].parts |= s->v[i].parts;
        } else s->v[m++] = s->v[i];
    }
    if (m > 1) qsort(s->v, m, sizeof(NameSum), by_total_desc);
    for (out->ntop = 0; out->ntop < 3 && out->ntop < m; out->ntop++) {
        TopKernel *k = &out->top[out->ntop];
        const NameSum *n = &s->v[out->ntop];
        kernel_short_name(n->name, k->name, sizeof k->name);
        rows_one_line(k->name);   /* a name from the file goes into key=value lines and notes */
        parts_label(n->parts, k->parts, sizeof k->parts);
        k->share = all > 0 ? n->total_ns / all : NAN;
        k->calls_per_step = (double)n->calls / out->nsteps;
    }
}

/* ---- one window ------------------------------------------------------------------------- */

static int count_named(const Trace *v, const char *a, const char *b) {
    int n = 0;
    for (int i = 0; i < v->nnvtx; i++)
        n += v->nvtx[i].name && (strcmp(v->nvtx[i].name, a) == 0 || (b && strcmp(v->nvtx[i].name, b) == 0));
    return n;
}

/* What the steps hold, over all of them: why a median is "-" (not measured). */
typedef struct { int launch_calls, with_gaps, with_a_call, with_two_calls, with_span, empty; } Facts;

static void warn(TraceStats *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Times no GPU run has: a kernel longer than its whole step, a step or a span of kernels
 * over a minute (a decode step takes milliseconds). Kineto writes ts 0 and dur 0 for
 * records it lost, and a ts of 0 beside real ones stretches a window to weeks. The numbers
 * are still reported: a warning names the event, once per window and kind. */
#define MINUTE_NS 60e9
static void absurd_times(const Trace *v, uint64_t g0, uint64_t g1, long number, const TraceWindow *w, TraceStats *s) {
    char step[48];
    if (number >= 0) snprintf(step, sizeof step, "ProfilerStep#%ld", number);
    else snprintf(step, sizeof step, "the trace");   /* no steps: one window, of no length of its own */
    double window = number < 0 ? INFINITY : g1 >= g0 ? (double)(g1 - g0) : 0;
    if (number >= 0 && window > MINUTE_NS)
        warn(s, "%s's window lasts %.1f s (ts %.3f to %.3f us), over a minute for one decode step: its times are likely "
                "wrong", step, window / 1e9, g0 / 1e3, g1 / 1e3);
    int longest = -1, last = -1;
    for (int i = 0; i < v->nk; i++) {
        const TKernel *k = &v->k[i];
        if (longest < 0 || k->end - k->start > v->k[longest].end - v->k[longest].start) longest = i;
        if (last < 0 || k->end > v->k[last].end) last = i;
    }
    if (longest >= 0 && (double)(v->k[longest].end - v->k[longest].start) > window) {
        const TKernel *k = &v->k[longest];
        warn(s, "kernel \"%.80s\" at ts %.3f us lasts %.3f us, longer than its step %s (%.3f us): its times are likely "
                "wrong, and it makes up %.1f%% of the step's kernel time", k->name ? k->name : "?", k->start / 1e3,
             (k->end - k->start) / 1e3, step, window / 1e3, 100.0 * (k->end - k->start) / w->gpu_ns);
    }
    if (w->span_ns > MINUTE_NS) {
        const TKernel *a = &v->k[0], *b = &v->k[last];
        warn(s, "%s's kernels span %.1f s, from kernel \"%.60s\" at ts %.3f us to kernel \"%.60s\" ending at ts %.3f us, "
                "over a minute: a kernel's ts or dur is likely wrong (Kineto writes ts 0 and dur 0 for kernels it lost)",
             step, w->span_ns / 1e9, a->name ? a->name : "?", a->start / 1e3, b->name ? b->name : "?", b->end / 1e3);
    }
}

/* The step's dispatch intervals after the ones of the steps before it. */
static void add_dispatch(TraceStats *s, const TraceWindow *w) {
    if (!w->n_dispatch) return;
    double *grown = realloc(s->dispatch_us, sizeof(double) * (size_t)(s->n_dispatch + w->n_dispatch));
    if (!grown) die("trace: out of host memory at %d dispatch intervals", s->n_dispatch);
    s->dispatch_us = grown;
    for (int i = 0; i < w->n_dispatch; i++) s->dispatch_us[s->n_dispatch++] = w->dispatch_ns[i] / 1e3;
}

/* Where a step's longest pause ends: the op (or kernel) the launch call after it launched;
 * the steps' answers kept while they agree. */
static void pause_where(TraceStats *s, const Trace *v, uint32_t corr) {
    const char *at = "a launch call of no kernel in the step";
    for (int i = 0; i < v->nk; i++)
        if (v->k[i].corr == corr) {
            at = v->k[i].op ? v->k[i].op : v->k[i].name ? v->k[i].name : at;
            break;
        }
    char here[sizeof s->pause_op];
    snprintf(here, sizeof here, "before the launch of %s", at);
    rows_one_line(here);
    if (!s->pause_op[0]) snprintf(s->pause_op, sizeof s->pause_op, "%s", here);
    else if (strcmp(s->pause_op, here))
        snprintf(s->pause_op, sizeof s->pause_op, "in a different place in each step");
}

static void one_window(const Trace *t, const CallStart *calls, uint64_t g0, uint64_t g1, uint64_t h0, uint64_t h1,
                       long number, const char *linear_from, StepStats *st, NameSums *names, Facts *f, TraceStats *s) {
    TApi *copied;
    Trace v = view(t, calls, g0, g1, h0, h1, &copied);
    TraceWindow w = trace_window_host(&v, g0, g1, h0, h1, 1);
    add_dispatch(s, &w);
    absurd_times(&v, g0, g1, number, &w, s);
    double *x = st->v;
    int host = f->launch_calls > 0, kernels = w.kernels > 0;
    /* Not measured is NAN ("-"), never 0: a window without kernels has no span, kernel time
     * or gaps; a trace without launch calls has no launches, and its gaps' host-bound share
     * is unknown, as it is when no gap's kernel joins a launch call. */
    x[TS_KERNELS] = w.kernels;
    x[TS_LAUNCHES] = host ? w.launch_calls_per_step : NAN;
    x[TS_LINEAR] = !strcmp(linear_from, "gemm_kernels") ? w.gemms_per_step
                 : !strcmp(linear_from, "aten::linear") ? count_named(&v, "aten::linear", NULL)
                 : count_named(&v, "aten::mm", "aten::addmm");
    x[TS_BUSY] = w.busy_ratio;
    x[TS_SPAN_US] = kernels ? w.span_ns / 1e3 : NAN;
    x[TS_GPU_US] = kernels ? w.busy_ns / 1e3 : NAN;
    x[TS_GAPS] = kernels ? w.n_gaps : NAN;
    x[TS_GAP_MEDIAN_US] = w.gap.median / 1e3;
    x[TS_GAP_P90_US] = w.gap.p90 / 1e3;
    x[TS_HOST_BOUND] = w.n_gaps_joined ? w.host_wait_share : NAN;
    x[TS_HOST_BOUND_GAPS] = w.n_gaps_joined ? w.host_bound_share : NAN;
    x[TS_CPU_PER_LAUNCH_US] = w.launch_interval_ns.median / 1e3;
    x[TS_LAUNCH_CALL_US] = w.launch_api_ns.median / 1e3;
    double beyond_call = x[TS_CPU_PER_LAUNCH_US] - x[TS_LAUNCH_CALL_US];
    x[TS_DISPATCH_US] = isnan(beyond_call) ? NAN : beyond_call > 0 ? beyond_call : 0;
    x[TS_LONGEST_PAUSE_US] = w.n_dispatch ? w.longest_dispatch_ns / 1e3 : NAN;
    x[TS_HOST_RANGES] = v.nnvtx;
    if (w.n_dispatch) pause_where(s, &v, w.longest_dispatch_corr);
    f->with_gaps += w.n_gaps > 0;
    f->with_a_call += w.launch_api_ns.n > 0;
    f->with_two_calls += w.launch_interval_ns.n > 0;
    f->with_span += w.span_ns > 0;
    f->empty += !kernels;
    ProfRow *rows = profile_rows(&v, &w, g0, g1, NULL);
    add_names(names, &w, rows);
    free(rows);
    trace_window_free(&w);
    free(copied);
}

/* Why the median of stat k is not measured (NAN in every step), in words. */
static const char *why_not(TraceStat k, const Facts *f) {
    static const char no_calls[] = "no cuda_runtime/cuda_driver launch call (cudaLaunchKernel, cuLaunchKernel, ...) in "
                                   "the trace: no kernel joins the call that launched it";
    static const char no_gaps[] = "no step has a gap between its kernels: the GPU never waited";
    switch (k) {
    case TS_LAUNCHES: case TS_CPU_PER_LAUNCH_US: case TS_LAUNCH_CALL_US: case TS_DISPATCH_US: case TS_LONGEST_PAUSE_US:
    case TS_HOST_BOUND: case TS_HOST_BOUND_GAPS:
        if (!f->launch_calls) return no_calls;
        if (k == TS_HOST_BOUND || k == TS_HOST_BOUND_GAPS)
            return !f->with_gaps ? no_gaps
                 : "no gap's kernel has its launch call in the trace (args.correlation matches none of the "
                   "cuda_runtime/cuda_driver events)";
        if (!f->with_a_call) return "no step has a launch call inside its CPU-side window";
        if (k != TS_LAUNCH_CALL_US && !f->with_two_calls) return "no step has two launch calls inside its CPU-side window";
        break;
    case TS_GAP_MEDIAN_US: case TS_GAP_P90_US: return no_gaps;
    case TS_BUSY: if (!f->with_span) return "every step's kernels take no time (their dur is 0)"; break;
    default: break;
    }
    return "not defined in any step";
}

/* ---- the windows ------------------------------------------------------------------------ */

/* A step's GPU-side window [g0, g1] (its kernels) and CPU-side one [h0, h1] (its host records). */
typedef struct { uint64_t g0, g1, h0, h1; long number; } Window;

static const Window *g_windows;   /* qsort has no context argument */
static int by_gpu_start(const void *a, const void *b) {
    const Window *x = &g_windows[*(const int *)a], *y = &g_windows[*(const int *)b];
    return x->g0 != y->g0 ? (x->g0 < y->g0 ? -1 : 1) : *(const int *)a - *(const int *)b;
}
static int by_host_start(const void *a, const void *b) {
    const Window *x = &g_windows[*(const int *)a], *y = &g_windows[*(const int *)b];
    return x->h0 != y->h0 ? (x->h0 < y->h0 ? -1 : 1) : *(const int *)a - *(const int *)b;
}

static void warn(TraceStats *s, const char *fmt, ...) {
    int max = (int)(sizeof s->warning / sizeof s->warning[0]);
    if (s->nwarnings == max) { s->warnings_left_out++; return; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->warning[s->nwarnings], sizeof s->warning[0], fmt, ap);
    va_end(ap);
    rows_one_line(s->warning[s->nwarnings++]);
}

/* One profiling session's steps do not overlap: each ends where the next begins. Where the
 * windows of one side do overlap (a trace put together by hand, streams running across a
 * step's end), each is cut to end just before the next one by start begins, and that is
 * said once: a kernel then counts in one step only, and the work of all the steps together
 * stays that of one pass over the trace, not steps x kernels. Sorted once, swept once. */
static void clip_overlaps(Window *w, int n, int gpu_side, TraceStats *s) {
    int *order = xmalloc(sizeof(int) * (size_t)(n + 1)), cut = 0;
    for (int i = 0; i < n; i++) order[i] = i;
    g_windows = w;
    qsort(order, n, sizeof(int), gpu_side ? by_gpu_start : by_host_start);
    Window first = {0}, next = {0};
    for (int j = 0; j + 1 < n; j++) {
        Window *a = &w[order[j]];
        const Window *b = &w[order[j + 1]];
        uint64_t *a0 = gpu_side ? &a->g0 : &a->h0, *a1 = gpu_side ? &a->g1 : &a->h1, b0 = gpu_side ? b->g0 : b->h0;
        if (*a1 < b0) continue;
        if (!cut++) first = *a, next = *b;
        if (b0 > 0) *a1 = b0 - 1;
        else *a0 = 1, *a1 = 0;   /* both begin at 0: this one holds nothing */
    }
    if (cut)
        warn(s, "%d of the %d steps' %s windows overlap the next one (the first: ProfilerStep#%ld, ts %.3f to %.3f us, "
                "and ProfilerStep#%ld from ts %.3f us): each window now ends where the next begins, so a record "
                "counts in one step only; one profiling session's steps never overlap", cut, n,
             gpu_side ? "GPU-side" : "CPU-side", first.number, (gpu_side ? first.g0 : first.h0) / 1e3,
             (gpu_side ? first.g1 : first.h1) / 1e3, next.number, (gpu_side ? next.g0 : next.h0) / 1e3);
    free(order);
}

int trace_stats(const TraceJson *tj, TraceStats *out, char *err, size_t cap) {
    const Trace *t = &tj->t;
    TraceStats s = {.nsteps = tj->nsteps ? tj->nsteps : 1};
    if (cap) err[0] = 0;
    s.step = xcalloc((size_t)s.nsteps, sizeof(StepStats));
    s.linear_from = !tj->cpu_ops ? "gemm_kernels" : "aten::mm+aten::addmm";
    for (int i = 0; i < t->nnvtx && tj->cpu_ops; i++)
        if (t->nvtx[i].name && !strcmp(t->nvtx[i].name, "aten::linear")) { s.linear_from = "aten::linear"; break; }

    Facts f = {0};
    CallStart *calls = xmalloc(sizeof(CallStart) * (size_t)(t->napi + 1));
    for (int i = 0; i < t->napi; i++) {
        calls[i] = (CallStart){t->api[i].corr, i};
        f.launch_calls += trace_is_launch_call(t->api[i].name);
    }
    qsort(calls, t->napi, sizeof(CallStart), by_corr);
    NameSums names = {0};
    int on_gpu = 0;
    Window *w = xmalloc(sizeof(Window) * (size_t)s.nsteps);
    for (int i = 0; i < tj->nsteps; i++) {
        const TraceStep *p = &tj->steps[i];
        w[i] = (Window){p->has_gpu ? p->gpu0 : p->cpu0, p->has_gpu ? p->gpu1 : p->cpu1,
                        p->has_cpu ? p->cpu0 : p->gpu0, p->has_cpu ? p->cpu1 : p->gpu1, p->number};
        on_gpu += p->has_gpu;
    }
    if (!tj->nsteps) w[0] = (Window){0, UINT64_MAX, 0, UINT64_MAX, -1};
    s.windows = !tj->nsteps ? "whole_trace" : on_gpu == tj->nsteps ? "gpu_user_annotation"
              : on_gpu == 0 ? "user_annotation" : "mixed";
    Window all = w[0];   /* the steps' extent on the side that holds kernels, before any cut */
    for (int i = 1; i < s.nsteps; i++) {
        if (w[i].g0 < all.g0) all.g0 = w[i].g0;
        if (w[i].g1 > all.g1) all.g1 = w[i].g1;
    }
    clip_overlaps(w, s.nsteps, 1, &s);
    clip_overlaps(w, s.nsteps, 0, &s);
    for (int i = 0; i < s.nsteps; i++) {
        s.step[i].number = w[i].number;
        one_window(t, calls, w[i].g0, w[i].g1, w[i].h0, w[i].h1, w[i].number, s.linear_from, &s.step[i], &names, &f, &s);
    }
    free(calls);
    free(w);

    if (f.empty == s.nsteps) {   /* (the whole trace holds every kernel: only steps can miss them all) */
        uint64_t last = 0;
        for (int i = 0; i < t->nk; i++)
            if (t->k[i].end > last) last = t->k[i].end;
        snprintf(err, cap, "no kernel starts inside any of the %d ProfilerStep windows (ProfilerStep#%ld to #%ld, %s "
                           "side, ts %.3f to %.3f us), while the trace's %d kernel%s run from ts %.3f to %.3f us: "
                           "prof.step() is likely misplaced (call it once per profiled decode step, inside the loop, "
                           "after the step's work), or the steps' windows hold no kernels",
                 s.nsteps, tj->steps[0].number, tj->steps[tj->nsteps - 1].number,
                 on_gpu == tj->nsteps ? "GPU" : on_gpu ? "GPU or CPU" : "CPU", all.g0 / 1e3, all.g1 / 1e3, t->nk, t->nk == 1 ? "" : "s",
                 t->k[0].start / 1e3, last / 1e3);
        free(names.v);
        trace_stats_free(&s);
        *out = s;
        return -1;
    }
    for (int i = 0; i < tj->nsteps; i++)
        if (s.step[i].v[TS_KERNELS] == 0)
            warn(&s, "ProfilerStep#%ld's window (ts %.3f to %.3f us) holds no kernel: its kernel values are - and "
                     "its kernels=0 counts in the median; prof.step() may be misplaced", s.step[i].number,
                 tj->steps[i].has_gpu ? tj->steps[i].gpu0 / 1e3 : tj->steps[i].cpu0 / 1e3,
                 tj->steps[i].has_gpu ? tj->steps[i].gpu1 / 1e3 : tj->steps[i].cpu1 / 1e3);

    double *v = xmalloc(sizeof(double) * (size_t)s.nsteps);
    for (int k = 0; k < TS_COUNT; k++) {
        int n = 0;
        for (int i = 0; i < s.nsteps; i++)
            if (!isnan(s.step[i].v[k])) v[n++] = s.step[i].v[k];
        s.median[k] = median_of(v, n);
        s.why[k] = isnan(s.median[k]) ? why_not((TraceStat)k, &f) : NULL;
    }
    free(v);
    top_kernels(&names, &s);
    free(names.v);
    *out = s;
    return 0;
}

void trace_stats_free(TraceStats *s) {
    free(s->step);
    free(s->dispatch_us);
    memset(s, 0, sizeof *s);
}
