/* trace: the records, the window analysis and the Chrome-trace JSON (trace.h). The
 * arithmetic: busy = the union of the kernel intervals (the GPU time; the busy ratio divides
 * it by the step's TPOT measured without a profiler), span = first start -> last end, a gap =
 * a positive interval between the end of the union so far and the next kernel start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/trace.h"
#include "util.h"

/* ---- records ------------------------------------------------------------------------ */

#define APPEND(arr, n, cap, rec)                                                   \
    do {                                                                           \
        if ((n) == (cap)) {                                                        \
            (cap) = (cap) ? 2 * (cap) : 1024;                                      \
            void *grown = realloc((arr), sizeof(*(arr)) * (size_t)(cap));          \
            if (!grown) die("trace: out of memory at %d records", (n));            \
            (arr) = grown;                                                         \
        }                                                                          \
        (arr)[(n)++] = (rec);                                                      \
    } while (0)

static const char *copy_str(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void trace_add_kernel(Trace *t, const TKernel *k) {
    TKernel c = *k;
    c.name = copy_str(k->name);
    APPEND(t->k, t->nk, t->capk, c);
}
void trace_add_api(Trace *t, const TApi *a) {
    TApi c = *a;
    c.name = copy_str(a->name);
    APPEND(t->api, t->napi, t->capapi, c);
}
void trace_add_nvtx(Trace *t, const TRange *r) {
    TRange c = *r;
    c.name = copy_str(r->name);
    APPEND(t->nvtx, t->nnvtx, t->capnvtx, c);
}
void trace_add_mem(Trace *t, const TMem *m) { APPEND(t->mem, t->nmem, t->capmem, *m); }
void trace_add_sync(Trace *t, const TSync *s) { APPEND(t->sync, t->nsync, t->capsync, *s); }

void trace_clear(Trace *t) {
    for (int i = 0; i < t->nk; i++) free((void *)t->k[i].name);
    for (int i = 0; i < t->napi; i++) free((void *)t->api[i].name);
    for (int i = 0; i < t->nnvtx; i++) free((void *)t->nvtx[i].name);
    t->nk = t->napi = t->nnvtx = t->nmem = t->nsync = 0;
    t->dropped = 0;
}

void trace_free(Trace *t) {
    trace_clear(t);
    free(t->k); free(t->api); free(t->nvtx); free(t->mem); free(t->sync);
    memset(t, 0, sizeof *t);
}

const TApi *trace_api_by_corr(const Trace *t, uint32_t corr) {
    for (int i = 0; i < t->napi; i++)
        if (t->api[i].corr == corr) return &t->api[i];
    return NULL;
}

/* ---- the launch tag: part+1 in bits 40-47, layer+1 in 32-39, seq in 0-31 ------------
 * (under 2^53, so it survives JSON readers that hold numbers as doubles; never 0). */

uint64_t launch_tag_encode(int part, int layer, uint32_t seq) {
    return (uint64_t)((part + 1) & 0xff) << 40 | (uint64_t)((layer + 1) & 0xff) << 32 | seq;
}

void launch_tag_decode(uint64_t tag, int *part, int *layer) {
    int p = (int)(tag >> 40 & 0xff) - 1;
    *part = tag && p >= 0 && p < P_COUNT ? p : P_OTHER;
    *layer = tag ? (int)(tag >> 32 & 0xff) - 1 : -1;
}

/* ---- the window ---------------------------------------------------------------------- */

/* Kernels by start (then end); the API calls by correlation id, for the joins. */
typedef struct { uint64_t start, end; int i; } Span;
typedef struct { uint32_t corr; int i; } CorrIdx;

static int by_start(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->i - y->i;
}
static int by_corr(const void *a, const void *b) {
    const CorrIdx *x = a, *y = b;
    return x->corr != y->corr ? (x->corr < y->corr ? -1 : 1) : x->i - y->i;
}

typedef struct { CorrIdx *v; int n; } ApiIndex;

static ApiIndex api_index(const Trace *t) {
    ApiIndex ix = {xmalloc(sizeof(CorrIdx) * (size_t)(t->napi + 1)), t->napi};
    for (int i = 0; i < t->napi; i++) ix.v[i] = (CorrIdx){t->api[i].corr, i};
    qsort(ix.v, ix.n, sizeof(CorrIdx), by_corr);
    return ix;
}
static const TApi *api_of(const Trace *t, ApiIndex ix, uint32_t corr) {
    int lo = 0, hi = ix.n;                 /* binary search: the first entry with corr >= corr */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ix.v[mid].corr < corr) lo = mid + 1; else hi = mid;
    }
    return lo < ix.n && ix.v[lo].corr == corr ? &t->api[ix.v[lo].i] : NULL;
}

static int in_window(uint64_t start, uint64_t t0, uint64_t t1) { return start >= t0 && start <= t1; }

int trace_is_launch_call(const char *name) {
    static const char *const launches[] = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                                           "cudaGraphLaunch", "cuLaunchKernel", "cuGraphLaunch"};
    for (size_t i = 0; name && i < sizeof launches / sizeof launches[0]; i++)
        if (strncmp(name, launches[i], strlen(launches[i])) == 0) return 1;
    return 0;
}
static int is_graph_launch(const TApi *a) {
    return a && a->name && (strncmp(a->name, "cudaGraphLaunch", 15) == 0 || strncmp(a->name, "cuGraphLaunch", 13) == 0);
}

int trace_kernel_part(const TKernel *k) {
    /* a graph's kernels carry the tag of the op that launched the graph ("other"): their names say more */
    if (k->ext && k->part >= 0 && k->part < P_COUNT && k->part != P_OTHER) return k->part;
    return part_from_kernel_name(k->name);
}
static int kernel_is_gemm(const TKernel *k) {
    return k->ext ? k->is_gemm : part_is_gemm(part_from_kernel_name(k->name));
}

/* Busy time = the union of the intervals, walked in start order; a gap opens whenever a
 * kernel starts after everything before it has ended. gap_end_kernel[g] is the position
 * (in s) of the kernel that closes gap g, union_end[g] where the union stood before it. */
static double union_and_gaps(const Span *s, int n, double *gaps, int *n_gaps,
                             int *gap_end_kernel, uint64_t *union_end) {
    double busy = 0;
    uint64_t end = 0;
    *n_gaps = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || s[i].start >= end) {
            if (i > 0 && s[i].start > end) {
                gaps[*n_gaps] = (double)(s[i].start - end);
                gap_end_kernel[*n_gaps] = i;
                union_end[*n_gaps] = end;
                (*n_gaps)++;
            }
            busy += (double)(s[i].end - s[i].start);
            end = s[i].end;
        } else if (s[i].end > end) {       /* overlaps the union: only the part past its end */
            busy += (double)(s[i].end - end);
            end = s[i].end;
        }
    }
    return busy;
}

/* A gap is host-bound when the call that launched the kernel closing it began only after
 * the GPU had run dry: the GPU waited on the CPU, not on its own queue. host_bound counts
 * such a gap whole; host_wait only its part before the call began (the rest is the call
 * itself and the GPU's start-up), the definition torch traces are read with (trace_stats). */
static int gap_is_host_bound(const TApi *launch, uint64_t union_end) {
    return launch && launch->start > union_end;
}

/* Linear layers counted as ops, not kernels: one op may run two kernels (cuBLAS split-K)
 * and a graph replays the same tags. Walking kernels in launch order (correlation id,
 * then start), an op is a run of consecutive kernels with the same tag from the same
 * launch call or from the same eager stream of calls; untagged kernels are one op each. */
static int count_gemm_ops(const Trace *t, ApiIndex ix, const Span *s, int n) {
    CorrIdx *order = xmalloc(sizeof(CorrIdx) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) order[i] = (CorrIdx){t->k[s[i].i].corr, i};
    qsort(order, n, sizeof(CorrIdx), by_corr);   /* ties keep start order: i is by start */
    int ops = 0;
    uint64_t prev_ext = 0, prev_graph = UINT64_MAX;
    for (int j = 0; j < n; j++) {
        const TKernel *k = &t->k[s[order[j].i].i];
        const TApi *a = api_of(t, ix, k->corr);
        uint64_t graph = is_graph_launch(a) ? k->corr : 0;   /* eager kernels: one stream */
        int same_op = k->ext && k->ext == prev_ext && graph == prev_graph;
        if (kernel_is_gemm(k) && !same_op) ops++;
        prev_ext = k->ext;
        prev_graph = graph;
    }
    free(order);
    return ops;
}

static const char *kname(const TKernel *k) { return k->name ? k->name : "(unnamed)"; }
static const Trace *g_sort_trace;   /* qsort has no context argument */
static int by_name(const void *a, const void *b) {
    const Span *x = a, *y = b;
    int c = strcmp(kname(&g_sort_trace->k[x->i]), kname(&g_sort_trace->k[y->i]));
    return c ? c : by_start(a, b);
}
static int by_total_desc(const void *a, const void *b) {
    const TNameTime *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Per kernel name: calls, total, mean and sd of durations; sorted by total, descending. */
static TNameTime *time_by_name(const Trace *t, const Span *s, int n, double gpu_ns, int *n_names) {
    Span *v = xmalloc(sizeof(Span) * (size_t)(n + 1));
    memcpy(v, s, sizeof(Span) * (size_t)n);
    g_sort_trace = t;
    qsort(v, n, sizeof(Span), by_name);
    TNameTime *out = xmalloc(sizeof(TNameTime) * (size_t)(n + 1));
    double *d = xmalloc(sizeof(double) * (size_t)(n + 1));
    int m = 0;
    for (int i = 0, j; i < n; i = j) {
        const TKernel *k = &t->k[v[i].i];
        double total = 0;
        for (j = i; j < n && strcmp(kname(&t->k[v[j].i]), kname(k)) == 0; j++)
            total += d[j - i] = (double)(v[j].end - v[j].start);
        Stats st = stats_of(d, j - i);
        out[m++] = (TNameTime){kname(k), trace_kernel_part(k), j - i, total, st.mean, st.sd,
                               gpu_ns > 0 ? total / gpu_ns : 0};
    }
    qsort(out, m, sizeof(TNameTime), by_total_desc);
    free(v);
    free(d);
    *n_names = m;
    return out;
}

static int by_end(const void *a, const void *b) {
    const Span *x = a, *y = b;
    return x->end < y->end ? -1 : x->end > y->end ? 1 : by_start(a, b);
}

/* TPartTime.path_ns: the busy time cut at every kernel's end, each piece to the kernel that
 * ended there */
static void path_by_part(const Trace *t, const Span *s, int n, TPartTime *parts) {
    Span *v = xmalloc(sizeof(Span) * (size_t)(n + 1));
    memcpy(v, s, sizeof(Span) * (size_t)n);
    qsort(v, n, sizeof(Span), by_end);
    uint64_t prev = 0;
    for (int i = 0; i < n; i++) {
        const uint64_t from = v[i].start > prev ? v[i].start : prev;
        if (v[i].end > from) parts[trace_kernel_part(&t->k[v[i].i])].path_ns += (double)(v[i].end - from);
        if (v[i].end > prev) prev = v[i].end;
    }
    free(v);
}

TraceWindow trace_window(const Trace *t, uint64_t t0, uint64_t t1, int steps) {
    return trace_window_host(t, t0, t1, t0, t1, steps);
}

TraceWindow trace_window_host(const Trace *t, uint64_t t0, uint64_t t1, uint64_t h0, uint64_t h1, int steps) {
    TraceWindow w = {.steps = steps};
    double per_step = steps > 0 ? 1.0 / steps : NAN;
    ApiIndex ix = api_index(t);

    Span *s = xmalloc(sizeof(Span) * (size_t)(t->nk + 1));
    int n = 0;
    for (int i = 0; i < t->nk; i++)
        if (in_window(t->k[i].start, t0, t1)) s[n++] = (Span){t->k[i].start, t->k[i].end, i};
    qsort(s, n, sizeof(Span), by_start);
    w.kernels = n;
    w.kernels_per_step = n * per_step;

    /* the timeline: busy, span, gaps and which gaps the host caused */
    w.gaps_ns = xmalloc(sizeof(double) * (size_t)(n + 1));
    w.gap_part = xmalloc(sizeof(int) * (size_t)(n + 1));
    int *gap_end = xmalloc(sizeof(int) * (size_t)(n + 1));
    uint64_t *union_end = xmalloc(sizeof(uint64_t) * (size_t)(n + 1));
    w.busy_ns = union_and_gaps(s, n, w.gaps_ns, &w.n_gaps, gap_end, union_end);
    uint64_t last_end = 0;
    for (int i = 0; i < n; i++) {
        w.gpu_ns += (double)(s[i].end - s[i].start);
        if (s[i].end > last_end) last_end = s[i].end;
    }
    w.span_ns = n ? (double)(last_end - s[0].start) : 0;
    w.busy_ratio = w.span_ns > 0 ? w.busy_ns / w.span_ns : NAN;
    w.gap = stats_of(w.gaps_ns, w.n_gaps);
    for (int g = 0; g < w.n_gaps; g++) {
        const TApi *launch = api_of(t, ix, t->k[s[gap_end[g]].i].corr);
        w.gap_part[g] = trace_kernel_part(&t->k[s[gap_end[g]].i]);
        w.gap_total_ns += w.gaps_ns[g];
        w.n_gaps_joined += launch != NULL;
        if (gap_is_host_bound(launch, union_end[g])) {
            double before_call = (double)(launch->start - union_end[g]);
            w.host_bound_ns += w.gaps_ns[g];
            w.host_wait_ns += before_call < w.gaps_ns[g] ? before_call : w.gaps_ns[g];
        }
    }
    w.host_bound_share = w.gap_total_ns > 0 ? w.host_bound_ns / w.gap_total_ns : 0;
    w.host_wait_share = w.gap_total_ns > 0 ? w.host_wait_ns / w.gap_total_ns : 0;
    free(gap_end);
    free(union_end);

    /* the host: launch calls, the time from one to the next (start to start, and from the
     * end of one to the start of the next: the host's own time between launches), and how
     * long each kernel waited after its call returned */
    double *d = xmalloc(sizeof(double) * (size_t)(t->napi + n + 1));
    Span *calls = xmalloc(sizeof(Span) * (size_t)(t->napi + 1));
    int nd = 0;
    for (int i = 0; i < t->napi; i++)
        if (in_window(t->api[i].start, h0, h1) && trace_is_launch_call(t->api[i].name)) {
            calls[nd] = (Span){t->api[i].start, t->api[i].end, i};
            d[nd++] = (double)(t->api[i].end - t->api[i].start);
        }
    w.launch_api_ns = stats_of(d, nd);
    w.launch_calls_per_step = nd * per_step;
    qsort(calls, nd, sizeof(Span), by_start);
    for (int i = 1; i < nd; i++) d[i - 1] = (double)(calls[i].start - calls[i - 1].start);
    w.launch_interval_ns = stats_of(d, nd > 1 ? nd - 1 : 0);
    w.dispatch_ns = xmalloc(sizeof(double) * (size_t)(nd + 1));
    for (int i = 1; i < nd; i++) {
        w.dispatch_ns[i - 1] = (double)calls[i].start - (double)calls[i - 1].end;
        if (w.dispatch_ns[i - 1] > w.longest_dispatch_ns)
            w.longest_dispatch_ns = w.dispatch_ns[i - 1], w.longest_dispatch_corr = t->api[calls[i].i].corr;
    }
    w.n_dispatch = nd > 1 ? nd - 1 : 0;
    free(calls);
    nd = 0;
    for (int i = 0; i < n; i++) {
        const TApi *a = api_of(t, ix, t->k[s[i].i].corr);
        if (a) d[nd++] = s[i].start > a->end ? (double)(s[i].start - a->end) : 0;
    }
    w.launch_delay_ns = stats_of(d, nd);
    free(d);

    /* counts per step */
    w.gemms = count_gemm_ops(t, ix, s, n);
    w.gemms_per_step = w.gemms * per_step;
    int nvtx = 0;
    for (int i = 0; i < t->nnvtx; i++) nvtx += in_window(t->nvtx[i].start, h0, h1);
    w.nvtx_ops_per_step = nvtx * per_step;

    /* GPU time per model part and per kernel name */
    for (int i = 0; i < n; i++) {
        TPartTime *p = &w.parts[trace_kernel_part(&t->k[s[i].i])];
        p->calls++;
        p->total_ns += (double)(s[i].end - s[i].start);
    }
    for (int p = 0; p < P_COUNT; p++) w.parts[p].share = w.gpu_ns > 0 ? w.parts[p].total_ns / w.gpu_ns : 0;
    path_by_part(t, s, n, w.parts);
    w.names = time_by_name(t, s, n, w.gpu_ns, &w.n_names);

    free(s);
    free(ix.v);
    return w;
}

void trace_window_free(TraceWindow *w) {
    free(w->gaps_ns);
    free(w->gap_part);
    free(w->names);
    free(w->dispatch_ns);
    w->gaps_ns = NULL;
    w->gap_part = NULL;
    w->names = NULL;
    w->dispatch_ns = NULL;
    w->n_gaps = w->n_names = w->n_dispatch = 0;
}

/* ---- Chrome-trace JSON -------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Microseconds from base, the unit of "ts" and "dur". */
static double us(uint64_t t, uint64_t base) { return ((double)t - (double)base) / 1e3; }

static void event(FILE *f, int *first, const char *cat, const char *name, long pid, long tid,
                  uint64_t start, uint64_t end, uint64_t base) {
    fprintf(f, "%s\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", *first ? "" : ",", cat);
    json_str(f, name);
    fprintf(f, ",\"pid\":%ld,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f", pid, tid, us(start, base),
            end > start ? (double)(end - start) / 1e3 : 0.0);
    *first = 0;
}

static void meta(FILE *f, int *first, const char *what, long pid, long tid, const char *key, const char *val, long num) {
    fprintf(f, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"%s\":", *first ? "" : ",",
            what, pid, tid, key);
    if (val) json_str(f, val); else fprintf(f, "%ld", num);
    fprintf(f, "}}");
    *first = 0;
}

/* Adds v to the set (a small array) unless it is there; returns the new size. */
static int add_unique(long *set, int n, long v) {
    for (int i = 0; i < n; i++)
        if (set[i] == v) return n;
    set[n] = v;
    return n + 1;
}

int trace_write_chrome(const Trace *t, uint64_t t0, uint64_t t1, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) { printf("cannot write the trace %s; check that its folder exists and is writable\n", path); return -1; }
    long host = (long)getpid();
    ApiIndex ix = api_index(t);

    /* API calls: those overlapping the window and the launches of its kernels */
    char *emit = xcalloc((size_t)t->napi + 1, 1), *flowed = xcalloc((size_t)t->napi + 1, 1);
    for (int i = 0; i < t->napi; i++) emit[i] = t->api[i].start <= t1 && t->api[i].end >= t0;
    for (int i = 0; i < t->nk; i++)
        if (in_window(t->k[i].start, t0, t1)) {
            const TApi *a = api_of(t, ix, t->k[i].corr);
            if (a) emit[a - t->api] = 1;
        }
    uint64_t base = t0;
    for (int i = 0; i < t->napi; i++)
        if (emit[i] && t->api[i].start < base) base = t->api[i].start;

    /* the tracks: host threads, GPU devices and streams */
    int cap = t->napi + t->nnvtx + t->nk + t->nmem + 1;
    long *tids = xmalloc(sizeof(long) * cap), *devs = xmalloc(sizeof(long) * cap);
    long *streams = xmalloc(sizeof(long) * cap);   /* device << 32 | stream */
    int ntid = 0, ndev = 0, nstream = 0;
    for (int i = 0; i < t->napi; i++) if (emit[i]) ntid = add_unique(tids, ntid, t->api[i].tid);
    for (int i = 0; i < t->nnvtx; i++)
        if (in_window(t->nvtx[i].start, t0, t1)) ntid = add_unique(tids, ntid, t->nvtx[i].tid);
    long mem_dev = t->nk ? t->k[0].device : 0;     /* memory records carry no device */
    for (int i = 0; i < t->nk; i++)
        if (in_window(t->k[i].start, t0, t1)) {
            ndev = add_unique(devs, ndev, t->k[i].device);
            nstream = add_unique(streams, nstream, (long)t->k[i].device << 32 | t->k[i].stream);
        }
    for (int i = 0; i < t->nmem; i++)
        if (in_window(t->mem[i].start, t0, t1)) {
            ndev = add_unique(devs, ndev, mem_dev);
            nstream = add_unique(streams, nstream, mem_dev << 32 | t->mem[i].stream);
        }

    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    int first = 1;
    char label[64];
    meta(f, &first, "process_name", host, 0, "name", "CPU (host)", 0);
    meta(f, &first, "process_sort_index", host, 0, "sort_index", NULL, 0);
    for (int i = 0; i < ntid; i++) {
        snprintf(label, sizeof label, "thread %ld", tids[i]);
        meta(f, &first, "thread_name", host, tids[i], "name", label, 0);
    }
    for (int i = 0; i < ndev; i++) {
        snprintf(label, sizeof label, "GPU %ld", devs[i]);
        meta(f, &first, "process_name", devs[i], 0, "name", label, 0);
        meta(f, &first, "process_sort_index", devs[i], 0, "sort_index", NULL, 1 + devs[i]);
    }
    for (int i = 0; i < nstream; i++) {
        snprintf(label, sizeof label, "stream %ld", streams[i] & 0xffffffff);
        meta(f, &first, "thread_name", streams[i] >> 32, streams[i] & 0xffffffff, "name", label, 0);
    }

    for (int i = 0; i < t->napi; i++) {
        if (!emit[i]) continue;
        const TApi *a = &t->api[i];
        event(f, &first, "cuda_runtime", a->name, host, a->tid, a->start, a->end, base);
        fprintf(f, ",\"args\":{\"correlation\":%u,\"cbid\":%d}}", a->corr, a->cbid);
    }
    for (int i = 0; i < t->nnvtx; i++) {
        const TRange *r = &t->nvtx[i];
        if (!in_window(r->start, t0, t1)) continue;
        event(f, &first, "user_annotation", r->name, host, r->tid, r->start, r->end, base);
        fprintf(f, "}");
    }
    for (int i = 0; i < t->nk; i++) {
        const TKernel *k = &t->k[i];
        if (!in_window(k->start, t0, t1)) continue;
        event(f, &first, "kernel", kname(k), k->device, k->stream, k->start, k->end, base);
        fprintf(f, ",\"args\":{\"device\":%u,\"stream\":%u,\"correlation\":%u,\"External id\":%llu,"
                   "\"part\":\"%s\",\"layer\":%d}}",
                k->device, k->stream, k->corr, (unsigned long long)k->ext, part_name(trace_kernel_part(k)),
                k->ext ? k->layer : -1);
    }
    for (int i = 0; i < t->nmem; i++) {
        const TMem *m = &t->mem[i];
        if (!in_window(m->start, t0, t1)) continue;
        event(f, &first, m->is_memset ? "gpu_memset" : "gpu_memcpy", m->is_memset ? "Memset" : "Memcpy",
              mem_dev, m->stream, m->start, m->end, base);
        fprintf(f, ",\"args\":{\"stream\":%u,\"correlation\":%u,\"bytes\":%llu,\"kind\":%d}}",
                m->stream, m->corr, (unsigned long long)m->bytes, m->copy_kind);
    }
    /* flow arrows: launch call -> its (first) kernel */
    for (int i = 0; i < t->nk; i++) {
        const TKernel *k = &t->k[i];
        const TApi *a = in_window(k->start, t0, t1) ? api_of(t, ix, k->corr) : NULL;
        if (!a || flowed[a - t->api]) continue;
        flowed[a - t->api] = 1;
        fprintf(f, ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%u,\"pid\":%ld,\"tid\":%u,\"ts\":%.3f}",
                k->corr, host, a->tid, us(a->start, base));
        fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%u,\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
                k->corr, k->device, k->stream, us(k->start, base));
    }
    fprintf(f, "\n]}\n");
    free(emit); free(flowed); free(tids); free(devs); free(streams); free(ix.v);
    if (fclose(f) != 0) { printf("cannot finish writing the trace %s (disk full?)\n", path); return -1; }
    return 0;
}
