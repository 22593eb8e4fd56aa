/* The timeline model (common/measure/replay.c) on hand-made steps, every expected number
 * worked out by hand from the two rules (start = max(submit + latency, previous end + gap),
 * dur = max(bytes / (bw e), flops / (peak f)) + c):
 *   (1) a host-bound step (a launch every 20 us, kernels of 2 us): TPOT = last submit + latency
 *       + dur + sync, every op host-bound, gaps of 18 us; a GPU-bound one (all submitted at 0,
 *       kernels of 10 us): latency + n x 10 + (n - 1) x gap + sync, busy near 100%; the
 *       crossover (launches dur + gap apart), where both rules give the same start; a graph
 *       step under PDL on a GPU with it and on the T4; a host that hands over after the last
 *       kernel; an empty step;
 *   (2) replay_dur_us: memory-bound, compute-bound, no flops, c scaled; replay_fit_f;
 *   (3) replay_fit on ops made with known e and c: two classes that show their bandwidth get
 *       their own, a class of tiny ops the pooled e and its c, a class with none the median c;
 *       a negative intercept clamped and the slope refitted through the origin; e > 1 pooled;
 *       no class visible: e = 1; sync_us from steps with a measured TPOT; the two errors;
 *   (4) replay_write then replay_read: every value back, bit for bit, nan included; broken
 *       files fail with a sentence naming the file and the line;
 *   (5) class names both ways, and replay_class_of_kernel on the kit's, cuBLAS's and PyTorch's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "measure/replay.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

static const ReplayGpu H200 = {"h200", 4800, 989, 1};

/* latency 5 us, gap 1 us (0.5 under PDL), sync 3 us; elementwise kernels of 2 us, GEMVs of 10
 * (the fixed cost alone: the steps below move no bytes) */
static ReplayFit timeline_fit(void) {
    ReplayFit f = {.latency_us = 5, .gap_us = 1, .gap_pdl_us = 0.5, .sync_us = 3};
    for (int c = 0; c < RC_COUNT; c++) f.e[c] = f.f[c] = 1;
    f.c_us[OC_ELEMENTWISE] = 2;
    f.c_us[RC_GEMV] = 10;
    return f;
}

/* A step of the n ops given, not timed */
static ReplayStep step_of(const char *name, int n, ReplayOp *ops) {
    ReplayStep s = {.n = n, .ops = ops, .tpot_ms = NAN, .busy_pct = NAN};
    snprintf(s.name, sizeof s.name, "%s", name);
    return s;
}
/* n ops of class cls that move nothing, op i submitted at t0 + i x every */
static ReplayStep make_step(const char *name, int n, int cls, double t0, double every, ReplayOp *ops) {
    for (int i = 0; i < n; i++) ops[i] = (ReplayOp){cls, 0, 0, t0 + i * every, NAN};
    return step_of(name, n, ops);
}

static void timelines(void) {
    const ReplayFit f = timeline_fit();
    ReplayOp ops[100];

    /* host-bound: op i ready at 20 i + 5, the kernel ahead ended at 20 i - 13 */
    ReplayStep s = make_step("host", 10, OC_ELEMENTWISE, 0, 20, ops);
    s.host_end_us = 181;
    ReplayResult r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 180 + 5 + 2 + 3, 1e-9), "host-bound: TPOT %.6g us, want 190 (last submit + latency + "
          "dur + sync)", r.tpot_ms * 1e3);
    CHECK(near(r.gpu_ms, 0.020, 1e-12) && near(r.busy_pct, 100 * 20.0 / 190, 1e-9), "host-bound: GPU 20 us, busy "
          "%.3g%% of 190 us", r.busy_pct);
    CHECK(r.host_bound == 10 && r.gaps == 9 && near(r.gap_median_us, 18, 1e-9), "host-bound: 10 of 10 ops started "
          "by the host (%d), 9 gaps (%d) of 18 us (median %g)", r.host_bound, r.gaps, r.gap_median_us);

    s.host_end_us = 500;   /* the host hands over long after the last kernel: it ends the step */
    r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 503, 1e-9), "a late hand-over sets TPOT: %.6g us, want 500 + 3", r.tpot_ms * 1e3);

    /* GPU-bound: all submitted at 0, kernels of 10 us one gap apart */
    s = make_step("gpu", 100, RC_GEMV, 0, 0, ops);
    r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 5 + 100 * 10 + 99 * 1 + 3, 1e-9), "GPU-bound: TPOT %.6g us, want 1107", r.tpot_ms * 1e3);
    CHECK(r.busy_pct > 90 && near(r.busy_pct, 100 * 1000 / 1107.0, 1e-9), "GPU-bound: busy %.4g%%", r.busy_pct);
    CHECK(r.host_bound == 1 && r.gaps == 99 && near(r.gap_median_us, 1, 1e-12), "GPU-bound: only op 0 host-bound "
          "(%d), 99 gaps of 1 us (%d, median %g)", r.host_bound, r.gaps, r.gap_median_us);

    /* the crossover: launches dur + gap = 3 us apart; a hair later every op waits for the host,
     * a hair earlier for the kernel ahead, and the TPOT is the same three ways */
    const double want = 5 + 10 * 2 + 9 * 1 + 3;   /* = last submit 27 + latency + dur + sync */
    const double offset[3] = {0, 1e-6, -1e-6};
    const int bound[3] = {1, 10, 1};
    for (int k = 0; k < 3; k++) {
        s = make_step("cross", 10, OC_ELEMENTWISE, 0, 3 + offset[k], ops);
        r = replay_step(&s, &H200, &f, 1);
        CHECK(near(r.tpot_ms * 1e3, want, 1e-4) && r.host_bound == bound[k], "crossover, launches %+g us off: TPOT "
              "%.6g us (want %g), %d ops host-bound (want %d)", offset[k], r.tpot_ms * 1e3, want, r.host_bound, bound[k]);
    }

    /* a graph under PDL: every op at the graph launch's submit; gap_pdl_us on a GPU with PDL,
     * gap_us on the T4, and on any GPU for a step launched without it */
    s = make_step("graph", 10, RC_GEMV, 2, 0, ops);
    s.graph = s.pdl = 1;
    r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 2 + 5 + 100 + 9 * 0.5 + 3, 1e-9), "graph + PDL on a PDL GPU: TPOT %.6g us, want 114.5",
          r.tpot_ms * 1e3);
    r = replay_step(&s, &REPLAY_T4, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 2 + 5 + 100 + 9 * 1 + 3, 1e-9), "graph + PDL on the T4 (no PDL): TPOT %.6g us, want 119",
          r.tpot_ms * 1e3);
    s.pdl = 0;
    r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 119, 1e-9), "a graph without PDL on a PDL GPU: gap_us, TPOT %.6g us", r.tpot_ms * 1e3);

    s = make_step("empty", 0, 0, 0, 0, ops);
    s.host_end_us = 10;
    r = replay_step(&s, &H200, &f, 1);
    CHECK(near(r.tpot_ms * 1e3, 13, 1e-12) && r.busy_pct == 0 && r.gaps == 0 && r.gap_median_us == 0 &&
              r.host_bound == 0, "an empty step: the host's hand-over and sync, 13 us (%g), busy 0", r.tpot_ms * 1e3);
}

static void durations(void) {
    const ReplayGpu g = {"g", 1000, 100, 0};
    ReplayFit f = {0};
    f.e[RC_GEMV] = f.f[RC_GEMV] = 0.5;
    f.c_us[RC_GEMV] = 2;
    /* 1 MB at 1000 GB/s x 0.5 = 2 us; 1 MFLOP at 100 TFLOP/s x 0.5 = 0.02 us; 1 GFLOP 20 us */
    const ReplayOp mem = {RC_GEMV, 1e6, 1e6, 0, NAN}, comp = {RC_GEMV, 1e6, 1e9, 0, NAN}, none = {RC_GEMV, 1e6, 0, 0, NAN};
    CHECK(near(replay_dur_us(&mem, &g, &f, 1), 4, 1e-12), "memory-bound: 2 + c 2 = %g us", replay_dur_us(&mem, &g, &f, 1));
    CHECK(near(replay_dur_us(&comp, &g, &f, 1), 22, 1e-12), "compute-bound: 20 + c 2 = %g us",
          replay_dur_us(&comp, &g, &f, 1));
    CHECK(near(replay_dur_us(&none, &g, &f, 1), 4, 1e-12), "no flops: the bandwidth term alone, %g us",
          replay_dur_us(&none, &g, &f, 1));
    CHECK(near(replay_dur_us(&comp, &g, &f, 0.5), 21, 1e-12) && near(replay_dur_us(&comp, &g, &f, 2), 24, 1e-12),
          "c x 0.5 and x 2: %g and %g us", replay_dur_us(&comp, &g, &f, 0.5), replay_dur_us(&comp, &g, &f, 2));
    /* replay_fit_f: 1 GFLOP in 22 us with c 2 is f 0.5 again; within its bytes' time (the 1 MB
     * op in 4 us, or 2.3: under 1.2x its 2 us) f does not show, and stays */
    ReplayFit f2 = f;
    f2.f[RC_GEMV] = 0.6;
    CHECK(near(replay_fit_f(&f2, &g, RC_GEMV, 1e6, 1e9, 22), 0.5, 1e-12) && near(f2.f[RC_GEMV], 0.5, 1e-12),
          "replay_fit_f: a 1 GFLOP op in 22 us is f = %g", f2.f[RC_GEMV]);
    f2.f[RC_GEMV] = 0.6;
    CHECK(isnan(replay_fit_f(&f2, &g, RC_GEMV, 1e6, 1e6, 4)) && isnan(replay_fit_f(&f2, &g, RC_GEMV, 1e6, 1e9, 4.3)) &&
              isnan(replay_fit_f(&f2, &g, RC_GEMV, 1e6, 1e9, NAN)) && isnan(replay_fit_f(&f2, &g, RC_GEMV, 1e6, 0, 50)) &&
              f2.f[RC_GEMV] == 0.6, "replay_fit_f: no f where the time is the bytes' (f stays %g)", f2.f[RC_GEMV]);
    /* 10x faster: bandwidth and peak x 10, and with c / 10 every op a tenth as long */
    const ReplayGpu g10 = replay_faster(&g, 10);
    CHECK(!strcmp(g10.name, "10x") && g10.bw_gbs == 10 * g.bw_gbs && g10.tflops == 10 * g.tflops && g10.pdl == g.pdl &&
              near(replay_dur_us(&comp, &g10, &f, 0.1), replay_dur_us(&comp, &g, &f, 1) / 10, 1e-12),
          "replay_faster: %s, %g GB/s, %g TFLOP/s", g10.name, g10.bw_gbs, g10.tflops);
}

/* ---- the fit ----------------------------------------------------------------------- */

enum { NOPS = 60 };
/* One step of 60 ops: 20 GEMMs (e 0.8, c 3 us, 2 to 40 MB), 20 GEMVs (e 0.9, c 2 us, 1 to 20
 * MB) and 20 elementwise ops of 4 KB (e 0.85, c 4 us: bandwidth time 0.0009 us, invisible),
 * interleaved, all submitted at 0. Their durations are the model's own, so the fit can
 * recover them. */
static double dur_of(double bytes, double e, double c) { return bytes / (H200.bw_gbs * 1e3 * e) + c; }
static void fit_step(ReplayStep *s, ReplayOp *ops, int k) {
    char name[16];
    snprintf(name, sizeof name, "fit%d", k);
    *s = step_of(name, NOPS, ops);
    for (int i = 0; i < 20; i++) {
        const double bg = (2 + 2 * i + k) * 1e6, bv = (1 + i + k) * 1e6, be = 4096;
        ops[3 * i] = (ReplayOp){OC_GEMM, bg, 2 * bg, 0, dur_of(bg, 0.8, 3)};
        ops[3 * i + 1] = (ReplayOp){RC_GEMV, bv, bv, 0, dur_of(bv, 0.9, 2)};
        ops[3 * i + 2] = (ReplayOp){OC_ELEMENTWISE, be, 0, 0, dur_of(be, 0.85, 4)};
    }
}

/* replay_fit_line: a made-up GEMV curve, 3 us + bytes at 80% of 1000 GB/s, fitted back; a
 * set whose bytes do not show (all tiny) is refused */
static void fit_line(void) {
    double bytes[6], us[6], e = 0, c = 0;
    for (int i = 0; i < 6; i++) bytes[i] = 1e6 * (1 << (2 * i)), us[i] = 3 + bytes[i] / (1000 * 0.8 * 1e3);
    CHECK(replay_fit_line(bytes, us, 6, 1000, &e, &c) && near(e, 0.8, 1e-9) && near(c, 3, 1e-9),
          "fit_line: e %.6g c %.6g, want 0.8 and 3", e, c);
    for (int i = 0; i < 6; i++) bytes[i] = 1e3 * (i + 1), us[i] = 5;
    e = c = -1;
    CHECK(!replay_fit_line(bytes, us, 6, 1000, &e, &c) && e == -1 && c == -1,
          "fit_line: 1-6 KB at a flat 5 us show no bandwidth, so no fit (e %g c %g)", e, c);
}

static void fits(void) {
    ReplayStep steps[4];
    ReplayOp ops[4][NOPS];
    for (int k = 0; k < 4; k++) fit_step(&steps[k], ops[k], k);
    /* TPOT: the replay with the true constants and no sync, plus 6, 7 and 9 us (median 7); the
     * fourth step was not timed */
    ReplayFit truth = {.latency_us = 5, .gap_us = 1, .gap_pdl_us = 0.5};
    truth.e[OC_GEMM] = 0.8, truth.c_us[OC_GEMM] = 3;
    truth.e[RC_GEMV] = 0.9, truth.c_us[RC_GEMV] = 2;
    truth.e[OC_ELEMENTWISE] = 0.85, truth.c_us[OC_ELEMENTWISE] = 4;
    for (int c = 0; c < RC_COUNT; c++) truth.f[c] = REPLAY_F_ASSUMED;
    const double extra[3] = {6, 9, 7};
    for (int k = 0; k < 3; k++) steps[k].tpot_ms = replay_step(&steps[k], &H200, &truth, 1).tpot_ms + extra[k] / 1e3;

    ReplayFit f = {.latency_us = 5, .gap_us = 1, .gap_pdl_us = 0.5};
    char err[512] = "";
    CHECK(replay_fit(steps, 4, &H200, &f, err, sizeof err) == 0, "the fit: %s", err);
    CHECK(near(f.e[OC_GEMM], 0.8, 1e-9) && near(f.c_us[OC_GEMM], 3, 1e-9) && !f.e_pooled[OC_GEMM] && f.n[OC_GEMM] == 80,
          "GEMM: e %.12g (0.8), c %.12g us (3), its own, %d ops", f.e[OC_GEMM], f.c_us[OC_GEMM], f.n[OC_GEMM]);
    CHECK(near(f.e[RC_GEMV], 0.9, 1e-9) && near(f.c_us[RC_GEMV], 2, 1e-9) && !f.e_pooled[RC_GEMV] && f.n[RC_GEMV] == 80,
          "GEMV: e %.12g (0.9), c %.12g us (2), its own, %d ops", f.e[RC_GEMV], f.c_us[RC_GEMV], f.n[RC_GEMV]);
    /* the pooled e: the two slopes 1/0.8 and 1/0.9 weighted by their sums of x^2 */
    double xg = 0, xv = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < NOPS; i++) {
            const double x = ops[k][i].bytes / (H200.bw_gbs * 1e3);
            if (ops[k][i].cls == OC_GEMM) xg += x * x;
            if (ops[k][i].cls == RC_GEMV) xv += x * x;
        }
    const double pool = (xg + xv) / (xg / 0.8 + xv / 0.9), xe = 4096 / (H200.bw_gbs * 1e3);
    const double c_elt = 4 + xe * (1 / 0.85 - 1 / pool);   /* what the pooled e leaves of 4 us */
    CHECK(pool > 0.8 && pool < 0.9 && near(f.e[OC_ELEMENTWISE], pool, 1e-9) && f.e_pooled[OC_ELEMENTWISE] &&
              f.n[OC_ELEMENTWISE] == 80, "tiny elementwise ops: the pooled e %.6g (want %.6g), %d ops",
          f.e[OC_ELEMENTWISE], pool, f.n[OC_ELEMENTWISE]);
    CHECK(near(f.c_us[OC_ELEMENTWISE], c_elt, 1e-9) && near(f.c_us[OC_ELEMENTWISE], 4, 1e-3),
          "tiny elementwise ops: c %.9g us (want %.9g, about 4)", f.c_us[OC_ELEMENTWISE], c_elt);
    CHECK(f.n[OC_ATTENTION] == 0 && f.e_pooled[OC_ATTENTION] && near(f.e[OC_ATTENTION], pool, 1e-9) &&
              near(f.c_us[OC_ATTENTION], 3, 1e-9), "a class with no ops: the pooled e, the median c of 3, 2 and ~4 "
          "(%g)", f.c_us[OC_ATTENTION]);
    int f_assumed = 1;
    for (int c = 0; c < RC_COUNT; c++) f_assumed &= f.f[c] == REPLAY_F_ASSUMED;
    CHECK(f_assumed, "f is REPLAY_F_ASSUMED for every class");
    CHECK(near(f.sync_us, 7, 1e-6), "sync_us %.9g: the median of 6, 9 and 7 us left over", f.sync_us);
    CHECK(f.latency_us == 5 && f.gap_us == 1 && f.gap_pdl_us == 0.5, "no graph step: the measured latency and gaps "
          "untouched");

    /* Graph steps: their gaps refitted from their untraced TPOT (a kernel trace of a graph shows
     * its nodes nearly touching): 0.4 us without PDL and 0.2 with it, where the trace said 1 and
     * 0.5; sync still from the steps that are not graphs */
    ReplayStep gs[6];
    ReplayOp gops[2][NOPS];
    for (int k = 0; k < 4; k++) gs[k] = steps[k];
    ReplayFit gt = truth;
    gt.sync_us = 7, gt.gap_us = 0.4, gt.gap_pdl_us = 0.2;
    for (int k = 0; k < 2; k++) {
        fit_step(&gs[4 + k], gops[k], k);
        gs[4 + k].graph = 1, gs[4 + k].pdl = k;
        gs[4 + k].tpot_ms = replay_step(&gs[4 + k], &H200, &gt, 1).tpot_ms;
    }
    ReplayFit h = {.latency_us = 5, .gap_us = 1, .gap_pdl_us = 0.5};
    CHECK(replay_fit(gs, 6, &H200, &h, err, sizeof err) == 0, "the fit with graph steps: %s", err);
    CHECK(near(h.sync_us, 7, 1e-6) && near(h.gap_us, 0.4, 1e-6) && near(h.gap_pdl_us, 0.2, 1e-6),
          "graph steps: sync %.9g (7), gap %.9g (0.4), gap under PDL %.9g (0.2)", h.sync_us, h.gap_us, h.gap_pdl_us);

    /* A negative intercept (y = x / 0.5 - 1): clamped, and the slope refitted through the origin.
     * A slope under 1 / REPLAY_E_MAX (y = x / 1.5 + 1: faster than a read-only kernel outruns a
     * copy): pooled, from the copies. */
    ReplayOp more[40];
    double xx = 0, xy = 0;
    for (int i = 0; i < 20; i++) {
        const double x = 4 + 2 * i, b = x * H200.bw_gbs * 1e3;
        more[i] = (ReplayOp){OC_COPY, b, 0, 0, x / 0.5 - 1};
        more[20 + i] = (ReplayOp){OC_CAT, b, 0, 0, x / 1.5 + 1};
        xx += x * x;
        xy += x * (x / 0.5 - 1);
    }
    ReplayStep s = step_of("clamp", 40, more);
    ReplayFit g = {0};
    CHECK(replay_fit(&s, 1, &H200, &g, err, sizeof err) == 0, "the second fit: %s", err);
    CHECK(g.c_us[OC_COPY] == 0 && near(g.e[OC_COPY], xx / xy, 1e-12) && !g.e_pooled[OC_COPY],
          "a negative intercept: c %g, e %.9g refitted through the origin (want %.9g)", g.c_us[OC_COPY], g.e[OC_COPY],
          xx / xy);
    CHECK(g.e_pooled[OC_CAT] && near(g.e[OC_CAT], g.e[OC_COPY], 1e-12), "e > REPLAY_E_MAX is pooled: e %.9g",
          g.e[OC_CAT]);
    CHECK(g.sync_us == 0, "no step timed: sync_us 0 (%g)", g.sync_us);

    /* nothing shows its bandwidth: e = 1 for all, c what is left */
    ReplayOp tiny[3] = {{OC_REDUCE, 1000, 0, 0, 5}, {OC_REDUCE, 1000, 0, 0, 6}, {OC_GATHER, 2000, 0, 0, 3}};
    s = step_of("tiny", 3, tiny);
    CHECK(replay_fit(&s, 1, &H200, &g, err, sizeof err) == 0, "the third fit: %s", err);
    int all1 = 1;
    for (int c = 0; c < RC_COUNT; c++) all1 &= g.e[c] == 1 && g.e_pooled[c];
    const double x1 = 1000 / (H200.bw_gbs * 1e3), x2 = 2000 / (H200.bw_gbs * 1e3);
    CHECK(all1 && near(g.c_us[OC_REDUCE], 5.5 - x1, 1e-12) && near(g.c_us[OC_GATHER], 3 - x2, 1e-12),
          "no class visible: e = 1 for all, c %.9g and %.9g", g.c_us[OC_REDUCE], g.c_us[OC_GATHER]);

    /* the errors */
    for (int i = 0; i < 3; i++) tiny[i].dur_us = NAN;
    CHECK(replay_fit(&s, 1, &H200, &g, err, sizeof err) == -1 && strstr(err, "dur_us"), "no duration: %s", err);
    const ReplayGpu nobw = {"nobw", 0, 100, 0};
    CHECK(replay_fit(steps, 4, &nobw, &g, err, sizeof err) == -1 && strstr(err, "bandwidth") && strstr(err, "nobw"),
          "no bandwidth: %s", err);
}

/* ---- the file ---------------------------------------------------------------------- */

static char dir[] = "/tmp/kit_replay_XXXXXX";

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void round_trip(void) {
    char path[300], err[512] = "";
    snprintf(path, sizeof path, "%s/replay.tsv", dir);
    ReplayStep steps[3];
    ReplayOp ops[NOPS], two[2] = {{RC_GEMV, 1.0 / 3, 0.1, 0.7, NAN}, {OC_OTHER, 0, 0, -1.5e-7, 1e-300}};
    fit_step(&steps[0], ops, 1);
    steps[0].tpot_ms = 1.2345678901234567, steps[0].busy_pct = 33.3, steps[0].host_end_us = 98.7;
    steps[1] = step_of("eager_b1_d14", 2, two);
    steps[1].graph = steps[1].pdl = 1;
    steps[2] = step_of("empty", 0, NULL);
    ReplayFit fit = {.latency_us = 4.1, .gap_us = 1.3, .gap_pdl_us = 0.3};
    CHECK(replay_fit(steps, 1, &H200, &fit, err, sizeof err) == 0, "the fit to write: %s", err);
    CHECK(replay_write(path, &H200, &fit, steps, 3, err, sizeof err) == 0, "replay_write: %s", err);

    ReplayGpu g;
    ReplayFit f;
    ReplayStep *back;
    int n;
    CHECK(replay_read(path, &g, &f, &back, &n, err, sizeof err) == 0, "replay_read: %s", err);
    if (n != 3) { CHECK(0, "3 steps back, got %d", n); return; }
    CHECK(!strcmp(g.name, "h200") && g.bw_gbs == H200.bw_gbs && g.tflops == H200.tflops && g.pdl == 1, "the GPU back");
    int fit_same = f.latency_us == fit.latency_us && f.gap_us == fit.gap_us && f.gap_pdl_us == fit.gap_pdl_us &&
                   f.sync_us == fit.sync_us;
    for (int c = 0; c < RC_COUNT; c++)
        fit_same &= f.e[c] == fit.e[c] && f.f[c] == fit.f[c] && f.c_us[c] == fit.c_us[c] && f.n[c] == fit.n[c] &&
                    f.e_pooled[c] == fit.e_pooled[c];
    CHECK(fit_same, "the fit back, bit for bit");
    int steps_same = 1;
    for (int s = 0; s < 3; s++) {
        const ReplayStep *a = &steps[s], *b = &back[s];
        steps_same &= !strcmp(a->name, b->name) && a->graph == b->graph && a->pdl == b->pdl && a->n == b->n &&
                      same(a->host_end_us, b->host_end_us) && same(a->tpot_ms, b->tpot_ms) &&
                      same(a->busy_pct, b->busy_pct);
        for (int i = 0; steps_same && i < a->n; i++)
            steps_same &= a->ops[i].cls == b->ops[i].cls && same(a->ops[i].bytes, b->ops[i].bytes) &&
                          same(a->ops[i].flops, b->ops[i].flops) && same(a->ops[i].submit_us, b->ops[i].submit_us) &&
                          same(a->ops[i].dur_us, b->ops[i].dur_us);
    }
    CHECK(steps_same, "the steps and their ops back, bit for bit (nan, 1/3, 1e-300, an empty step)");
    replay_steps_free(back, n);
}

/* What a broken file must do: fail with a sentence naming the file, the line and what is
 * wrong, and hand back no steps. with_head: the text follows a valid head (a comment, the gpu,
 * the four fit lines and every class), so its first line is line HEAD_LINES + 1. */
enum { HEAD_LINES = 6 + RC_COUNT };
static int read_text(const char *text, int with_head, ReplayStep **steps, int *n, char *err, size_t cap) {
    char path[300];
    snprintf(path, sizeof path, "%s/broken.tsv", dir);
    FILE *f = fopen(path, "w");
    if (with_head) {
        fprintf(f, "# a comment\ngpu\th200\t4800\t989\t1\nfit\tlatency_us\t4\nfit\tgap_us\t1\nfit\tgap_pdl_us\t0.5\n"
                   "fit\tsync_us\t3\n");
        for (int c = 0; c < RC_COUNT; c++) fprintf(f, "class\t%s\t0.8\t0.6\t2\t1\t0\n", replay_class_name(c));
    }
    fputs(text, f);
    fclose(f);
    ReplayGpu g;
    ReplayFit fit;
    return replay_read(path, &g, &fit, steps, n, err, cap);
}

static void broken(const char *what, int with_head, const char *text, int line, const char *says) {
    char err[512] = "", at[64];
    ReplayStep *steps;
    int n;
    snprintf(at, sizeof at, "%s/broken.tsv line %d: ", dir, line);
    const int rc = read_text(text, with_head, &steps, &n, err, sizeof err);
    CHECK(rc == -1 && strstr(err, at) && strstr(err, says) && !steps && !n, "%s: rc %d, '%s' (want '%s' and '%s')",
          what, rc, err, at, says);
}

static void files(void) {
    char err[512] = "";
    ReplayStep *steps;
    int n;
    const int rc = read_text("step\ts\t1\t0\t10\tnan\tnan\t1\nop\tgemv\t1e6\t0\t0\tnan\n", 1, &steps, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1 && steps[0].n == 1 && steps[0].ops[0].cls == RC_GEMV && isnan(steps[0].tpot_ms),
          "the broken files' valid head and one step read: %s", rc ? err : "ok");
    if (!rc) replay_steps_free(steps, n);

    const int b = HEAD_LINES + 1;   /* the first line after the head */
    broken("a bad number", 1, "step\ts\t0\t0\t10\tnan\tnan\t1\nop\tgemv\t12x\t0\t0\t1\n", b + 1, "bytes '12x' is not a number");
    broken("nan where a number is needed", 1, "step\ts\t0\t0\t10\tnan\tnan\t1\nop\tgemv\tnan\t0\t0\t1\n", b + 1,
           "bytes is nan; it must be a byte count");
    broken("an infinity", 1, "step\ts\t0\t0\tinf\tnan\tnan\t0\n", b, "host_end_us is inf");
    broken("fewer ops than the step says", 1, "step\ts\t0\t0\t10\tnan\tnan\t2\nop\tgemv\t1\t0\t0\t1\n", b + 1,
           "step s has 1 op lines, not the 2 its step line says (the file ends)");
    broken("fewer ops before the next step", 1,
           "step\ts\t0\t0\t10\tnan\tnan\t2\nop\tgemv\t1\t0\t0\t1\nstep\tt\t0\t0\t10\tnan\tnan\t0\n", b + 2,
           "(the next step begins)");
    broken("more ops than the step says", 1, "step\ts\t0\t0\t10\tnan\tnan\t1\nop\tgemv\t1\t0\t0\t1\nop\tgemv\t1\t0\t0\t1\n",
           b + 2, "step s says it has 1 ops, and this is one more");
    broken("an op before any step", 1, "op\tgemv\t1\t0\t0\t1\n", b, "an op line before any step line");
    broken("an unknown class", 1, "step\ts\t0\t0\t10\tnan\tnan\t1\nop\tgemv2\t1\t0\t0\t1\n", b + 1,
           "'gemv2' is not a replay class (gather, elementwise");
    broken("a field short", 1, "step\ts\t0\t0\t10\tnan\tnan\t1\nop\tgemv\t1\t0\t0\n", b + 1,
           "a op line has 5 tab-separated fields, not 6");
    broken("an unknown record", 1, "stp\ts\n", b, "'stp' is not a record");
    broken("a class twice", 1, "class\tgemv\t0.8\t0.6\t2\t1\t0\n", b, "a second class gemv line");
    broken("an e above REPLAY_E_MAX", 0, "gpu\th200\t4800\t989\t1\nclass\tgemv\t1.5\t0.6\t2\t1\t0\n", 2,
           "e is 1.5; it must be a bandwidth efficiency above 0 and at most 1.25");
    broken("a pdl of 2", 0, "gpu\th200\t4800\t989\t2\n", 1, "the GPU's pdl is '2'; it must be a whole number from 0 to 1");
    broken("no fit lines", 0, "gpu\th200\t4800\t989\t1\n", 1, "the file ends without a fit latency_us line");
    broken("an empty file", 0, "", 0, "the file ends without a gpu line");

    ReplayGpu g;
    ReplayFit fit;
    CHECK(replay_read("/nonexistent/replay.tsv", &g, &fit, &steps, &n, err, sizeof err) == -1 &&
              strstr(err, "cannot read /nonexistent/replay.tsv") && !steps, "a file that is not there: %s", err);
}

static void class_names(void) {
    int both = 1;
    for (int c = 0; c < RC_COUNT; c++) both &= replay_class_from_name(replay_class_name(c)) == c;
    CHECK(both, "every class's name gives the class back");
    CHECK(!strcmp(replay_class_name(RC_GEMV), "gemv") && !strcmp(replay_class_name(OC_GEMM), "gemm") &&
              replay_class_from_name("gemv2") == -1 && replay_class_from_name("") == -1,
          "gemv, gemm; no class named gemv2 or ''");
    const struct { const char *kernel; int cls; } k[] = {
        {"void gemv_qkv_rope_append<256, 0, __half>(GemvArgs)", RC_GEMV},
        {"void gemv_residual<256, 4, __half>(GemvArgs)", RC_GEMV},
        {"gemv_gate_up_silu", RC_GEMV},
        {"void gemv_lm_head<128, -1, signed char>(GemvArgs)", RC_GEMV},
        {"void gemv_plain<0>(GemvArgs)", RC_GEMV},
        {"void gemv2T_kernel_val<int, int, __half, __half, float, float, 128, 16, 4, 4, false, false, false, "
         "cublasGemvParams<cublasGemvTensorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half const>, "
         "cublasGemvTensorStridedBatched<__half>, float> >(cublasGemvParams<...>, float, float)", OC_GEMM},
        {"void gemvNSP_kernel<__half, __half, float, float, 1, 32, 4, 1024, cublasGemvParams<...> >(...)", OC_GEMM},
        {"void gemv_plainer(int)", OC_GEMM},   /* not the kit's kernel: a longer name */
        {"nvjet_hsh_64x8_64x16_2x1_v_bz_splitK_TNT", OC_GEMM},
        {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x1_tn_align8>(...)", OC_GEMM},
        {"void at::native::elementwise_kernel<128, 2, ...>(int, ...)", OC_ELEMENTWISE},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>(...)", OC_CAT},
        {"attn_kv", OC_ATTENTION},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        CHECK(replay_class_of_kernel(k[i].kernel) == k[i].cls, "%.60s: class %s, want %s", k[i].kernel,
              replay_class_name(replay_class_of_kernel(k[i].kernel)), replay_class_name(k[i].cls));
}

int main(void) {
    if (!mkdtemp(dir)) { printf("cannot make a temp folder in /tmp\n"); return 1; }
    timelines();
    durations();
    fits();
    fit_line();
    round_trip();
    files();
    class_names();
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) printf("could not remove %s\n", dir);
    return check_done("test_replay");
}
