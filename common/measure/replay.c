/* replay: a measured step on a model of a GPU's timeline (replay.h), the fit of its constants
 * and the file that carries both to bin/forecast. Units: bytes / (GB/s x 1e3) is microseconds
 * (1 GB/s moves 1e3 bytes a us), flops / (TFLOP/s x 1e6) too; every time here is in us but
 * the TPOT and GPU time of a ReplayResult, which are in ms like the days' rows. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/replay.h"
#include "measure/stats.h"
#include "util.h"

/* ---- classes ------------------------------------------------------------------------ */

const char *replay_class_name(int cls) {
    if (cls >= 0 && cls < OC_COUNT) return op_class_name((OpClass)cls);
    return cls == RC_GEMV ? "gemv" : "?";
}

int replay_class_from_name(const char *name) {
    for (int c = 0; c < RC_COUNT; c++)
        if (!strcmp(name, replay_class_name(c))) return c;
    return -1;
}

/* The kit's GEMV kernels (kernels/gemv.cu's __global__ entry points: gemv_tiles, gemv_bulk_tiles
 * and gemv_split_tiles are device functions inlined into them, never a kernel's name). A name
 * is one of them when it begins with it, after the "void " of a demangled template, and the
 * next character ends the identifier: "void gemv_residual<256, 0, __half>(GemvArgs)" is,
 * cuBLAS's gemv2T_kernel_val and gemvNSP_kernel are not (they stay op_class_of_kernel's GEMMs). */
static const char *const KIT_GEMV[] = {"gemv_plain", "gemv_qkv_rope_append", "gemv_residual", "gemv_gate_up_silu",
                                       "gemv_lm_head"};

int replay_class_of_kernel(const char *kernel) {
    if (!kernel) return OC_OTHER;
    const char *k = strncmp(kernel, "void ", 5) ? kernel : kernel + 5;
    for (size_t i = 0; i < sizeof KIT_GEMV / sizeof KIT_GEMV[0]; i++) {
        const size_t n = strlen(KIT_GEMV[i]);
        if (!strncmp(k, KIT_GEMV[i], n) && (k[n] == 0 || k[n] == '<' || k[n] == '(')) return RC_GEMV;
    }
    return op_class_of_kernel(kernel);
}

const ReplayGpu REPLAY_T4 = {"t4", 240, 65, 0};

ReplayGpu replay_faster(const ReplayGpu *gpu, double k) {
    ReplayGpu f = *gpu;
    snprintf(f.name, sizeof f.name, "%gx", k);
    f.bw_gbs *= k;
    f.tflops *= k;
    return f;
}

/* ---- the model ------------------------------------------------------------------------ */

double replay_fit_f(ReplayFit *fit, const ReplayGpu *gpu, int cls, double bytes, double flops, double dur_us) {
    if (cls < 0 || cls >= RC_COUNT || !(flops > 0) || !(gpu->tflops > 0)) return NAN;
    const double work = dur_us - fit->c_us[cls], mem = bytes / (gpu->bw_gbs * 1e3 * fit->e[cls]);
    if (!(work > 1.2 * mem)) return NAN;   /* also for a NaN duration */
    return fit->f[cls] = flops / (gpu->tflops * 1e6 * work);
}

double replay_dur_us(const ReplayOp *op, const ReplayGpu *gpu, const ReplayFit *fit, double c_scale) {
    if (op->cls < 0 || op->cls >= RC_COUNT) return NAN;   /* not a class: no constants to model it with */
    const double mem = op->bytes / (gpu->bw_gbs * 1e3 * fit->e[op->cls]);
    const double compute = op->flops > 0 && gpu->tflops > 0 ? op->flops / (gpu->tflops * 1e6 * fit->f[op->cls]) : 0;
    return fmax(mem, compute) + fit->c_us[op->cls] * c_scale;
}

ReplayResult replay_step(const ReplayStep *s, const ReplayGpu *gpu, const ReplayFit *fit, double c_scale) {
    ReplayResult r = {0};
    /* The gap a kernel waits after the one ahead of it: programmatic dependent launch shortens
     * it only where the step was launched with it and the GPU has it (a T4 does not). */
    const double g = s->pdl && gpu->pdl ? fit->gap_pdl_us : fit->gap_us;
    double *gaps = xmalloc(sizeof(double) * (size_t)(s->n > 0 ? s->n : 1));
    double end = 0, gpu_us = 0;   /* times from the step's start, so the first kernel's start is >= 0 */
    for (int i = 0; i < s->n; i++) {
        const double ready = s->ops[i].submit_us + fit->latency_us;
        const double dur = replay_dur_us(&s->ops[i], gpu, fit, c_scale);
        double start = ready;
        if (i == 0 || ready > end + g) r.host_bound++;   /* the host, not the kernel ahead, set its start */
        else start = end + g;
        if (i > 0 && start > end) gaps[r.gaps++] = start - end;
        end = start + dur;
        gpu_us += dur;
    }
    r.gap_median_us = r.gaps ? median_of(gaps, r.gaps) : 0;
    free(gaps);
    r.gpu_ms = gpu_us / 1e3;
    /* The token is the host's once the last kernel has ended and the host has handed the whole
     * step over (a host slower than its kernels ends the step itself), and the synchronize returns. */
    r.tpot_ms = ((s->n ? fmax(end, s->host_end_us) : s->host_end_us) + fit->sync_us) / 1e3;
    r.busy_pct = r.tpot_ms > 0 ? 100 * r.gpu_ms / r.tpot_ms : 0;
    return r;
}

/* ---- the fit ------------------------------------------------------------------------- */

/* The ops of class cls with a measured duration: x = bytes / (bw x 1e3), the us they would take
 * at the datasheet's bandwidth, and y = the measured us. Returns how many. */
static int class_points(const ReplayStep *steps, int nsteps, int cls, double bw, double *x, double *y) {
    int n = 0;
    for (int s = 0; s < nsteps; s++)
        for (int i = 0; i < steps[s].n; i++) {
            const ReplayOp *op = &steps[s].ops[i];
            if (op->cls != cls || !isfinite(op->dur_us)) continue;
            x[n] = op->bytes / (bw * 1e3);
            y[n++] = op->dur_us;
        }
    return n;
}

/* The class's own y = s x + c (s = 1 / e), by least squares; 0 when its ops cannot show it:
 * their largest bandwidth time is under REPLAY_E_VISIBLE of their median duration (the fixed
 * cost hides it), they all move the same bytes (no slope to see), or the slope says faster
 * than a copy by more than a read-only kernel can be (e > REPLAY_E_MAX: the bytes came from a
 * cache, or were counted wrong) or makes no sense (s <= 0). A negative c is no cost: it is clamped to 0 and the slope refitted through
 * the origin. */
static int own_fit(const double *x, const double *y, int n, double *s, double *c) {
    double xmax = 0, mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        xmax = fmax(xmax, x[i]);
        mx += x[i] / n;
        my += y[i] / n;
    }
    if (xmax < REPLAY_E_VISIBLE * median_of(y, n)) return 0;
    double sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0)) return 0;
    *s = sxy / sxx;
    *c = my - *s * mx;
    if (*c < 0) {
        double xx = 0, xy = 0;
        for (int i = 0; i < n; i++) {
            xx += x[i] * x[i];
            xy += x[i] * y[i];
        }
        *c = 0;
        *s = xy / xx;
    }
    return *s >= 1 / REPLAY_E_MAX;   /* also false for a NaN */
}

int replay_fit_line(const double *bytes, const double *dur_us, int n, double bw_gbs, double *e, double *c_us) {
    if (n < 2 || !(bw_gbs > 0)) return 0;
    double *x = xmalloc(sizeof(double) * (size_t)n), s, c;
    for (int i = 0; i < n; i++) x[i] = bytes[i] / (bw_gbs * 1e3);
    const int ok = own_fit(x, dur_us, n, &s, &c);
    free(x);
    if (ok) *e = 1 / s, *c_us = c;
    return ok;
}

int replay_fit(const ReplayStep *steps, int nsteps, const ReplayGpu *gpu, ReplayFit *fit, char *err, size_t cap) {
    if (!(gpu->bw_gbs > 0) || !isfinite(gpu->bw_gbs)) {
        snprintf(err, cap, "replay_fit: the GPU %s has a bandwidth of %g GB/s; give its datasheet's (above 0), "
                           "which the bandwidth efficiency e is fitted against", gpu->name, gpu->bw_gbs);
        return -1;
    }
    int total = 0;
    for (int s = 0; s < nsteps; s++)
        for (int i = 0; i < steps[s].n; i++) {
            const int cls = steps[s].ops[i].cls;
            if (cls < 0 || cls >= RC_COUNT) {
                snprintf(err, cap, "replay_fit: step %s op %d has class %d, which is not a replay class (0 to %d)",
                         steps[s].name, i, cls, RC_COUNT - 1);
                return -1;
            }
            total += isfinite(steps[s].ops[i].dur_us);
        }
    if (!total) {
        snprintf(err, cap, "replay_fit: no op of the %d steps has a measured duration (dur_us), so there is nothing "
                           "to fit e and c on; join the kernel-only trace's durations to the ops first", nsteps);
        return -1;
    }
    double *x = xmalloc(sizeof(double) * (size_t)total), *y = xmalloc(sizeof(double) * (size_t)total);
    double *rest = xmalloc(sizeof(double) * (size_t)(total > nsteps ? total : nsteps));

    /* Each class's own e and c where its bytes show the bandwidth. The pooled slope is the
     * least-squares slope through the origin of all those classes' ops, each less its class's
     * c: sum x (y - c) / sum x^2. By the normal equations of each class's own fit that is the
     * classes' own slopes averaged with weights sum x^2, so the classes that move the most
     * bytes per op (the GEMMs and GEMVs, whose bandwidth is what a decode step is) decide it,
     * and each slope being >= 1 / REPLAY_E_MAX it lies in (0, REPLAY_E_MAX] as an e (fmin: but for
     * rounding). */
    double pool_xy = 0, pool_xx = 0;
    for (int c = 0; c < RC_COUNT; c++) {
        const int n = class_points(steps, nsteps, c, gpu->bw_gbs, x, y);
        double s, c0;
        fit->n[c] = n;
        fit->f[c] = REPLAY_F_ASSUMED;
        fit->e_pooled[c] = 1;
        if (!n || !own_fit(x, y, n, &s, &c0)) continue;
        fit->e[c] = 1 / s;
        fit->c_us[c] = c0;
        fit->e_pooled[c] = 0;
        for (int i = 0; i < n; i++) {
            pool_xy += x[i] * (y[i] - c0);
            pool_xx += x[i] * x[i];
        }
    }
    /* No class shows its bandwidth (every op mostly its fixed cost on this GPU): e = 1 for all,
     * the datasheet's bandwidth, which nothing measured contradicts, and the replay on this GPU
     * is in effect the classes' c alone. */
    const double e_pool = pool_xx > 0 ? fmin(REPLAY_E_MAX, pool_xx / pool_xy) : 1;

    /* The pooled classes: e_pool, and c the median of what it leaves of their durations. */
    double cs[RC_COUNT];
    int ncs = 0;
    for (int c = 0; c < RC_COUNT; c++) {
        if (!fit->n[c]) continue;
        if (fit->e_pooled[c]) {
            const int n = class_points(steps, nsteps, c, gpu->bw_gbs, x, y);
            for (int i = 0; i < n; i++) rest[i] = y[i] - x[i] / e_pool;
            fit->e[c] = e_pool;
            fit->c_us[c] = fmax(0, median_of(rest, n));
        }
        cs[ncs++] = fit->c_us[c];
    }
    /* A class no op was fitted on (none of it in these steps) replays like the median class. */
    const double c_mid = median_of(cs, ncs);
    for (int c = 0; c < RC_COUNT; c++)
        if (!fit->n[c]) {
            fit->e[c] = e_pool;
            fit->c_us[c] = c_mid;
        }

    /* sync_us: what the measured TPOT holds beyond the replay without it (the synchronize's
     * return, the host's hand-over of the token), over the steps that are not graphs (their
     * gaps are still the trace's); 0 when no step was timed. */
    int nt = 0, graphs = 0;
    for (int s = 0; s < nsteps; s++) graphs += steps[s].graph != 0;
    fit->sync_us = 0;
    for (int s = 0; s < nsteps; s++)
        if (isfinite(steps[s].tpot_ms) && (!steps[s].graph || graphs == nsteps))
            rest[nt++] = steps[s].tpot_ms * 1e3 - replay_step(&steps[s], gpu, fit, 1).tpot_ms * 1e3;
    fit->sync_us = nt ? fmax(0, median_of(rest, nt)) : 0;
    /* the gaps inside a graph, from the graph steps' untraced TPOT (replay.h says why): what
     * they leave over, summed, over their boundaries, summed, so that every boundary counts
     * once and a graph of 900 small kernels is not outvoted by one of 100 large ones */
    for (int pdl = 0; pdl < 2; pdl++) {
        double *gap = pdl ? &fit->gap_pdl_us : &fit->gap_us, keep = *gap, left = 0;
        long boundaries = 0;
        *gap = 0;
        for (int s = 0; s < nsteps; s++) {
            const ReplayStep *st = &steps[s];
            if (!st->graph || (st->pdl && gpu->pdl) != pdl || !isfinite(st->tpot_ms) || st->n < 2) continue;
            left += st->tpot_ms * 1e3 - replay_step(st, gpu, fit, 1).tpot_ms * 1e3;
            boundaries += st->n - 1;
        }
        *gap = boundaries ? fmax(0, left / boundaries) : keep;
    }
    free(x);
    free(y);
    free(rest);
    return 0;
}

/* ---- results/replay.tsv --------------------------------------------------------------- */

static const char HEADER[] =
    "# replay.tsv: decode steps and the constants that replay them on a model of a GPU's timeline\n"
    "# (common/measure/replay.h); bin/forecast reads it. Tab-separated, one record a line:\n"
    "#   gpu    NAME BW_GBS TFLOPS PDL                  the GPU the steps ran and were fitted on\n"
    "#   fit    KEY US                                  latency_us, gap_us, gap_pdl_us, sync_us, once each\n"
    "#   class  NAME E F C_US N E_POOLED                every replay class once: e, f, c, ops fitted, e pooled\n"
    "#   step   NAME GRAPH PDL HOST_END_US TPOT_MS BUSY_PCT N    a step, then its N op lines\n"
    "#   op     CLASS BYTES FLOPS SUBMIT_US DUR_US      in launch order\n"
    "# Times in us from the step's start (its TPOT in ms, its busy in %); nan: not measured.\n";

/* The fit lines' keys; the writer's values and the reader's destinations list them in this order. */
static const char *const FIT_KEY[] = {"latency_us", "gap_us", "gap_pdl_us", "sync_us"};
enum { NFIT = sizeof FIT_KEY / sizeof FIT_KEY[0] };

/* A number that reads back as the same double: 17 significant digits, NAN as "nan". */
static void num(FILE *f, double v) {
    if (isnan(v)) fprintf(f, "\tnan");
    else fprintf(f, "\t%.17g", v);
}

/* A name is one field: not empty, no tab or line break. */
static int one_field(const char *name) { return *name && !strpbrk(name, "\t\r\n"); }

int replay_write(const char *path, const ReplayGpu *gpu, const ReplayFit *fit, const ReplayStep *steps, int n,
                 char *err, size_t cap) {
    if (!one_field(gpu->name)) {
        snprintf(err, cap, "%s: the GPU's name '%s' is empty or holds a tab or line break; name it in one word",
                 path, gpu->name);
        return -1;
    }
    for (int s = 0; s < n; s++) {
        if (!one_field(steps[s].name)) {
            snprintf(err, cap, "%s: step %d's name '%s' is empty or holds a tab or line break; name it in one word",
                     path, s, steps[s].name);
            return -1;
        }
        for (int i = 0; i < steps[s].n; i++)
            if (steps[s].ops[i].cls < 0 || steps[s].ops[i].cls >= RC_COUNT) {
                snprintf(err, cap, "%s: step %s op %d has class %d, which is not a replay class (0 to %d)", path,
                         steps[s].name, i, steps[s].ops[i].cls, RC_COUNT - 1);
                return -1;
            }
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, cap, "cannot write %s; check that its folder exists and is writable", path);
        return -1;
    }
    const double fv[NFIT] = {fit->latency_us, fit->gap_us, fit->gap_pdl_us, fit->sync_us};
    fputs(HEADER, f);
    fprintf(f, "gpu\t%s", gpu->name);
    num(f, gpu->bw_gbs);
    num(f, gpu->tflops);
    fprintf(f, "\t%d\n", gpu->pdl);
    for (int k = 0; k < NFIT; k++) {
        fprintf(f, "fit\t%s", FIT_KEY[k]);
        num(f, fv[k]);
        fprintf(f, "\n");
    }
    for (int c = 0; c < RC_COUNT; c++) {
        fprintf(f, "class\t%s", replay_class_name(c));
        num(f, fit->e[c]);
        num(f, fit->f[c]);
        num(f, fit->c_us[c]);
        fprintf(f, "\t%d\t%d\n", fit->n[c], fit->e_pooled[c]);
    }
    for (int s = 0; s < n; s++) {
        const ReplayStep *st = &steps[s];
        fprintf(f, "step\t%s\t%d\t%d", st->name, st->graph, st->pdl);
        num(f, st->host_end_us);
        num(f, st->tpot_ms);
        num(f, st->busy_pct);
        fprintf(f, "\t%d\n", st->n);
        for (int i = 0; i < st->n; i++) {
            const ReplayOp *op = &st->ops[i];
            fprintf(f, "op\t%s", replay_class_name(op->cls));
            num(f, op->bytes);
            num(f, op->flops);
            num(f, op->submit_us);
            num(f, op->dur_us);
            fprintf(f, "\n");
        }
    }
    const int failed = ferror(f);
    if (fclose(f) || failed) {
        snprintf(err, cap, "%s: writing it failed (a full disk?); free some space and run again", path);
        return -1;
    }
    return 0;
}

/* The reader's place, for its messages. */
typedef struct {
    const char *path;
    int line;
    char *err;
    size_t cap;
} Reader;

static int bad(Reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(Reader *rd, const char *fmt, ...) {
    int n = snprintf(rd->err, rd->cap, "%s line %d: ", rd->path, rd->line);
    if (n < 0 || (size_t)n >= rd->cap) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err + n, rd->cap - n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A field that is a finite number from lo to hi (rule says so in words), or "nan" where nan_ok.
 * ABOVE0 as lo: above 0. Returns 0, or -1 with the sentence. */
#define ABOVE0 DBL_TRUE_MIN
static int real(Reader *rd, const char *text, const char *what, double lo, double hi, int nan_ok, const char *rule,
                double *v) {
    char *end;
    *v = strtod(text, &end);
    if (end == text || *end) return bad(rd, "%s '%s' is not a number; it must be %s", what, text, rule);
    if (isnan(*v) && nan_ok) return 0;
    if (!isfinite(*v) || *v < lo || *v > hi) return bad(rd, "%s is %s; it must be %s", what, text, rule);
    return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define E_MAX_TEXT STR(REPLAY_E_MAX)   /* "1.25" */

/* A field that is a whole number from lo to hi. */
static int whole(Reader *rd, const char *text, const char *what, long lo, long hi, int *v) {
    char *end;
    const long x = strtol(text, &end, 10);
    if (end == text || *end || x < lo || x > hi)
        return bad(rd, "%s is '%s'; it must be a whole number from %ld to %ld", what, text, lo, hi);
    *v = (int)x;
    return 0;
}

static int class_field(Reader *rd, const char *text, int *cls) {
    if ((*cls = replay_class_from_name(text)) >= 0) return 0;
    char names[256] = "";
    for (int c = 0, n = 0; c < RC_COUNT; c++)
        n += snprintf(names + n, sizeof names - n, "%s%s", c ? ", " : "", replay_class_name(c));
    return bad(rd, "'%s' is not a replay class (%s)", text, names);
}

/* The line's tab-separated fields, in place; -1 when there are more than cap. */
static int split(char *line, char **field, int cap) {
    int n = 0;
    for (char *p = line;; p++) {
        if (n == cap) return -1;
        field[n++] = p;
        if (!(p = strchr(p, '\t'))) return n;
        *p = 0;
    }
}

static const char WRITER[] = "the file is not one replay_write wrote; run day11 again to remake it";

/* One step's op count against the op lines that followed it. */
static int ops_complete(Reader *rd, const ReplayStep *s, int want, const char *where) {
    if (s && s->n != want)
        return bad(rd, "step %s has %d op lines, not the %d its step line says (%s); %s", s->name, s->n, want, where,
                   WRITER);
    return 0;
}

static int read_lines(FILE *f, Reader *rd, ReplayGpu *gpu, ReplayFit *fit, ReplayStep **steps, int *nsteps) {
    char line[1024], *fld[10];
    int have_gpu = 0, fit_seen[NFIT] = {0}, class_seen[RC_COUNT] = {0}, cap = 0, want = 0, opcap = 0;
    double *dst[NFIT] = {&fit->latency_us, &fit->gap_us, &fit->gap_pdl_us, &fit->sync_us};
    ReplayStep *cur = NULL;
    while (read_line(f, line, sizeof line, rd->path, &rd->line)) {
        if (!*line || line[0] == '#') continue;
        const int nf = split(line, fld, 10);
        const char *kind = fld[0];
        int expect = !strcmp(kind, "gpu") ? 5 : !strcmp(kind, "fit") ? 3 : !strcmp(kind, "class") ? 7
                   : !strcmp(kind, "step") ? 8 : !strcmp(kind, "op") ? 6 : 0;
        if (!expect) return bad(rd, "'%s' is not a record (gpu, fit, class, step or op); %s", kind, WRITER);
        if (nf < 0) return bad(rd, "a %s line has more than 10 tab-separated fields, not %d; %s", kind, expect, WRITER);
        if (nf != expect) return bad(rd, "a %s line has %d tab-separated fields, not %d; %s", kind, nf, expect, WRITER);

        if (!strcmp(kind, "gpu")) {
            if (have_gpu++) return bad(rd, "a second gpu line; %s", WRITER);
            if (!one_field(fld[1]) || strlen(fld[1]) >= sizeof gpu->name)
                return bad(rd, "the GPU's name '%s' must be 1 to %zu characters", fld[1], sizeof gpu->name - 1);
            snprintf(gpu->name, sizeof gpu->name, "%s", fld[1]);
            if (real(rd, fld[2], "the GPU's bandwidth", ABOVE0, INFINITY, 0, "a bandwidth in GB/s above 0", &gpu->bw_gbs) ||
                real(rd, fld[3], "the GPU's peak", ABOVE0, INFINITY, 0, "a peak in TFLOP/s above 0", &gpu->tflops) ||
                whole(rd, fld[4], "the GPU's pdl", 0, 1, &gpu->pdl))
                return -1;
        } else if (!strcmp(kind, "fit")) {
            int k = 0;
            while (k < NFIT && strcmp(fld[1], FIT_KEY[k])) k++;
            if (k == NFIT) return bad(rd, "'%s' is not a fit constant (latency_us, gap_us, gap_pdl_us, sync_us)", fld[1]);
            if (fit_seen[k]++) return bad(rd, "a second fit %s line; %s", FIT_KEY[k], WRITER);
            if (real(rd, fld[2], FIT_KEY[k], 0, INFINITY, 0, "a time in us, 0 or more", dst[k])) return -1;
        } else if (!strcmp(kind, "class")) {
            int c;
            if (class_field(rd, fld[1], &c)) return -1;
            if (class_seen[c]++) return bad(rd, "a second class %s line; %s", fld[1], WRITER);
            if (real(rd, fld[2], "e", ABOVE0, REPLAY_E_MAX, 0, "a bandwidth efficiency above 0 and at most "
                     E_MAX_TEXT, &fit->e[c]) ||
                real(rd, fld[3], "f", ABOVE0, 1, 0, "a compute efficiency above 0 and at most 1", &fit->f[c]) ||
                real(rd, fld[4], "c_us", 0, INFINITY, 0, "a time in us, 0 or more", &fit->c_us[c]) ||
                whole(rd, fld[5], "n", 0, INT_MAX, &fit->n[c]) ||
                whole(rd, fld[6], "e_pooled", 0, 1, &fit->e_pooled[c]))
                return -1;
        } else if (!strcmp(kind, "step")) {
            if (ops_complete(rd, cur, want, "the next step begins")) return -1;
            if (*nsteps == cap) {
                cap = cap ? 2 * cap : 16;
                ReplayStep *grown = realloc(*steps, sizeof(ReplayStep) * (size_t)cap);
                if (!grown) die("out of memory reading %s", rd->path);
                *steps = grown;
            }
            cur = &(*steps)[(*nsteps)++];
            *cur = (ReplayStep){.ops = NULL};
            opcap = 0;
            if (!one_field(fld[1]) || strlen(fld[1]) >= sizeof cur->name)
                return bad(rd, "the step's name '%s' must be 1 to %zu characters", fld[1], sizeof cur->name - 1);
            snprintf(cur->name, sizeof cur->name, "%s", fld[1]);
            if (whole(rd, fld[2], "graph", 0, 1, &cur->graph) || whole(rd, fld[3], "pdl", 0, 1, &cur->pdl) ||
                real(rd, fld[4], "host_end_us", 0, INFINITY, 0, "a time in us, 0 or more", &cur->host_end_us) ||
                real(rd, fld[5], "tpot_ms", ABOVE0, INFINITY, 1, "a time in ms above 0, or nan", &cur->tpot_ms) ||
                real(rd, fld[6], "busy_pct", 0, 100, 1, "a share from 0 to 100, or nan", &cur->busy_pct) ||
                whole(rd, fld[7], "the op count", 0, INT_MAX, &want))
                return -1;
        } else {
            if (!cur) return bad(rd, "an op line before any step line; %s", WRITER);
            if (cur->n == want) return bad(rd, "step %s says it has %d ops, and this is one more; %s", cur->name, want,
                                           WRITER);
            if (cur->n == opcap) {
                opcap = opcap ? 2 * opcap : 64;
                ReplayOp *grown = realloc(cur->ops, sizeof(ReplayOp) * (size_t)opcap);
                if (!grown) die("out of memory reading %s", rd->path);
                cur->ops = grown;
            }
            ReplayOp *op = &cur->ops[cur->n++];
            if (class_field(rd, fld[1], &op->cls) ||
                real(rd, fld[2], "bytes", 0, INFINITY, 0, "a byte count, 0 or more", &op->bytes) ||
                real(rd, fld[3], "flops", 0, INFINITY, 0, "a flop count, 0 or more", &op->flops) ||
                real(rd, fld[4], "submit_us", -INFINITY, INFINITY, 0, "a time in us", &op->submit_us) ||
                real(rd, fld[5], "dur_us", 0, INFINITY, 1, "a time in us, 0 or more, or nan", &op->dur_us))
                return -1;
        }
    }
    if (ops_complete(rd, cur, want, "the file ends")) return -1;
    if (!have_gpu) return bad(rd, "the file ends without a gpu line; %s", WRITER);
    for (int k = 0; k < NFIT; k++)
        if (!fit_seen[k]) return bad(rd, "the file ends without a fit %s line; %s", FIT_KEY[k], WRITER);
    for (int c = 0; c < RC_COUNT; c++)
        if (!class_seen[c]) return bad(rd, "the file ends without a class %s line; %s", replay_class_name(c), WRITER);
    return 0;
}

int replay_read(const char *path, ReplayGpu *gpu, ReplayFit *fit, ReplayStep **steps, int *n, char *err, size_t cap) {
    *steps = NULL;
    *n = 0;
    FILE *f = open_regular(path);
    if (!f) {
        snprintf(err, cap, "cannot read %s; day11 writes it (make day11), or give another with --file", path);
        return -1;
    }
    Reader rd = {path, 0, err, cap};
    const int rc = read_lines(f, &rd, gpu, fit, steps, n);
    fclose(f);
    if (rc) {
        replay_steps_free(*steps, *n);
        *steps = NULL;
        *n = 0;
    }
    return rc;
}

void replay_steps_free(ReplayStep *steps, int n) {
    for (int i = 0; i < n; i++) free(steps[i].ops);
    free(steps);
}
