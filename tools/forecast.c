/* forecast: what the steps measured on one GPU would do on another (mistake #14: "a GPU 2x
 * faster makes my model 2x faster").
 *
 *   bin/forecast [--file results/replay.tsv] [--gpu NAME,BW_GBS,TFLOPS,PDL]
 *
 * day11 saves each configuration's decode step as the GPU at hand ran it (when the host began
 * each launch, what each op moves and computes, its kernel time) and the timeline model's
 * constants fitted there, in results/replay.tsv (common/measure/replay.h: the model, the fit
 * and the file). This replays those steps on other GPUs. A GPU-bound step (a graph: kernels
 * back to back) speeds up nearly with its kernels; a host-bound one (the eager step under
 * Python's dispatcher) waits for the same host on any GPU, and its TPOT hardly moves.
 *
 * It prints the fit (per kernel class: e, f, c, the ops fitted; latency, gaps, sync) and what
 * it assumes, then a table per GPU, a line per step (TPOT, busy, GPU time, gaps and their
 * median, the ops the host started), and greppable lines
 *   forecast_<gpu>_tpot_ms_<step>=  forecast_<gpu>_busy_<step>=  (busy in %, as day11's busy_*)
 * for these GPUs:
 *   fitted        the GPU the steps ran on, replayed: beside the measured TPOT and busy, how
 *                 far the model is from what it was fitted on
 *   t4            a Colab T4 (REPLAY_T4: 240 GB/s by a device-to-device copy, its datasheet's 320;
 *                 65 TFLOP/s; no PDL)
 *   2x, 10x       the fitted GPU with bandwidth and peak x k and each op's fixed cost c / k:
 *                 every kernel k times faster; the host, the launch latency and the gaps stay
 *   t4_c0.5, t4_c2  the T4 with c halved and doubled: how much its forecast leans on c, the
 *                 constant least sure to carry over to another GPU
 *   --gpu         one of your own, e.g. --gpu a100,1400,312,0 (name, GB/s a device-to-device copy
 *                 reaches on it, dense fp16 TFLOP/s, PDL 0 or 1)
 * It writes no rows (day11 writes its own). A file that is not a replay.tsv is one "error:"
 * sentence naming the file and the line, exit 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "measure/replay.h"
#include "report/rows.h"
#include "util.h"

static const char USAGE[] =
    "usage: bin/forecast [--file PATH] [--gpu NAME,BW_GBS,TFLOPS,PDL]\n"
    "  --file PATH  the steps and the fit day11 saved (default: results/replay.tsv, $KIT_RESULTS/replay.tsv)\n"
    "  --gpu NAME,BW_GBS,TFLOPS,PDL  one more GPU to forecast, e.g. a100,1400,312,0 (the GB/s a device-to-device\n"
    "               copy reaches on it, read + written; dense fp16 tensor TFLOP/s; 1 if it has programmatic\n"
    "               dependent launch: sm_90 and later)\n"
    "Prints each step replayed on the GPU it was fitted on, on a T4, on that GPU 2x and 10x faster,\n"
    "and on the T4 with each op's fixed cost halved and doubled; writes no rows.\n";

/* A GPU to forecast on: its label in the keys, its description, and c's scale. */
typedef struct {
    char label[32];
    ReplayGpu gpu;
    double c_scale;
    const char *what;   /* the table's heading, after the label */
} Target;

/* The labels the tool uses itself; --gpu must name another. */
static const char *const BUILTIN[] = {"fitted", "t4", "2x", "10x", "t4_c0.5", "t4_c2"};

/* --gpu NAME,BW_GBS,TFLOPS,PDL, each field by args.h's rules for a real, or die naming it. */
static ReplayGpu parse_gpu(const char *text) {
    const char *how = "give NAME,BW_GBS,TFLOPS,PDL, e.g. a100,1400,312,0 (a name of letters, digits, _ . -; "
                      "bandwidth in GB/s and dense fp16 TFLOP/s above 0; PDL 0 or 1)";
    char copy[128], *field[4] = {copy}, *end;
    int n = 1;
    if (strlen(text) >= sizeof copy) die("forecast: --gpu %.40s...: too long; %s", text, how);
    snprintf(copy, sizeof copy, "%s", text);
    for (char *p = copy; (p = strchr(p, ',')); field[n++] = p) {
        if (n == 4) die("forecast: --gpu %s: more than 4 fields; %s", text, how);
        *p++ = 0;
    }
    if (n != 4) die("forecast: --gpu %s: %d field%s, not 4; %s", text, n, n == 1 ? "" : "s", how);
    ReplayGpu g = {0};
    const size_t len = strlen(field[0]);
    if (!len || len >= sizeof g.name || strspn(field[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_.-") != len)
        die("forecast: --gpu %s: the name '%s' must be 1 to %zu letters, digits, _ . or -; %s", text, field[0],
            sizeof g.name - 1, how);
    for (size_t i = 0; i < sizeof BUILTIN / sizeof BUILTIN[0]; i++)
        if (!strcmp(field[0], BUILTIN[i])) die("forecast: --gpu %s: the name %s is one of the forecast's own; give "
                                               "your GPU another", text, field[0]);
    snprintf(g.name, sizeof g.name, "%s", field[0]);
    g.bw_gbs = strtod(field[1], &end);
    if (end == field[1] || *end || !isfinite(g.bw_gbs) || g.bw_gbs <= 0)
        die("forecast: --gpu %s: the bandwidth '%s' is not a number of GB/s above 0; %s", text, field[1], how);
    g.tflops = strtod(field[2], &end);
    if (end == field[2] || *end || !isfinite(g.tflops) || g.tflops <= 0)
        die("forecast: --gpu %s: the peak '%s' is not a number of TFLOP/s above 0; %s", text, field[2], how);
    if (strcmp(field[3], "0") && strcmp(field[3], "1")) die("forecast: --gpu %s: PDL '%s' is not 0 or 1; %s", text,
                                                            field[3], how);
    g.pdl = field[3][0] == '1';
    return g;
}

/* A measured value, or "-" when it was not measured. */
static void cell(double v, int width) {
    if (isnan(v)) printf(" %*s", width, "-");
    else printf(" %*.4g", width, v);
}

static void print_fit(const char *path, const ReplayGpu *g, const ReplayFit *fit, int nsteps) {
    printf("forecast: %s, %d steps measured and fitted on %s (%g GB/s, %g TFLOP/s, %s)\n", path, nsteps, g->name,
           g->bw_gbs, g->tflops, g->pdl ? "PDL" : "no PDL");
    printf("# the model: start = max(submit + latency, previous end + gap); dur = max(bytes / (bw x e), flops / "
           "(peak x f)) + c\n");
    printf("# the fit on %s, per kernel class (*: not the class's own: e pooled where its bytes are too few to show "
           "the bandwidth, c the fitted classes' median where it had no ops, f assumed):\n", g->name);
    printf("%-12s %8s %8s %9s %7s\n", "class", "e", "f", "c_us", "ops");
    for (int c = 0; c < RC_COUNT; c++)
        printf("%-12s %7.3f%s %7.2f* %8.3f%s %7d\n", replay_class_name(c), fit->e[c], fit->e_pooled[c] ? "*" : " ",
               fit->f[c], fit->c_us[c], fit->n[c] ? " " : "*", fit->n[c]);
    printf("latency_us=%.4g gap_us=%.4g gap_pdl_us=%.4g sync_us=%.4g\n", fit->latency_us, fit->gap_us,
           fit->gap_pdl_us, fit->sync_us);
    printf("# assumptions: e, f and c are %s's, carried over to every GPU below, and so are the host's submit "
           "times (%s's host: its CPU, its launch path); f = %g is assumed, no fitted op being compute-bound.\n",
           g->name, g->name, REPLAY_F_ASSUMED);
    printf("# 2x and 10x are %s with bandwidth and peak x k and each op's c / k, every kernel k times faster; the "
           "host, the launch latency, the gaps and sync stay as measured.\n", g->name);
}

static void print_target(const Target *t, const ReplayFit *fit, const ReplayStep *steps, int n) {
    const int fitted = !strcmp(t->label, "fitted");
    printf("\n## %s: %s (%g GB/s, %g TFLOP/s, %s", t->label, t->what, t->gpu.bw_gbs, t->gpu.tflops,
           t->gpu.pdl ? "PDL" : "no PDL");
    if (t->c_scale != 1) printf(", c x %g", t->c_scale);
    printf(")\n");
    if (!strcmp(t->label, "t4"))
        printf("# bandwidth: what a Colab T4's device-to-device copy reaches (its datasheet: %.0f GB/s), as e is a "
               "fraction of the fitted GPU's copy\n", REPLAY_T4_DATASHEET_GBS);
    printf("%-24s", "step");
    if (fitted) printf(" %11s %9s", "measured_ms", "measured%");
    printf(" %9s %7s %9s %6s %8s %10s\n", "tpot_ms", "busy%", "gpu_ms", "gaps", "gap_us", "host_bound");
    ReplayResult *r = xmalloc(sizeof(ReplayResult) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        r[i] = replay_step(&steps[i], &t->gpu, fit, t->c_scale);
        printf("%-24s", steps[i].name);
        if (fitted) {
            cell(steps[i].tpot_ms, 11);
            cell(steps[i].busy_pct, 9);
        }
        printf(" %9.4g %7.3g %9.4g %6d %8.3g %4d of %d\n", r[i].tpot_ms, r[i].busy_pct, r[i].gpu_ms, r[i].gaps,
               r[i].gap_median_us, r[i].host_bound, steps[i].n);
    }
    for (int i = 0; i < n; i++) {
        printf("forecast_%s_tpot_ms_%s=%.6g\n", t->label, steps[i].name, r[i].tpot_ms);
        printf("forecast_%s_busy_%s=%.6g\n", t->label, steps[i].name, r[i].busy_pct);
    }
    free(r);
}

int main(int argc, char **argv) {
    const char *file = NULL, *gpu_arg = NULL;
    const ArgFlag flags[] = {
        {"--file", ARG_STRING, &file, 0, 0, "a replay.tsv day11 wrote"},
        {"--gpu", ARG_STRING, &gpu_arg, 0, 0, "NAME,BW_GBS,TFLOPS,PDL, e.g. a100,1400,312,0"},
        {0}};
    args_parse("forecast", USAGE, argc, argv, flags, NULL);
    char path[4096];
    if (file) snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%s/replay.tsv", results_dir());
    ReplayGpu mine = {.pdl = 0};
    if (gpu_arg) mine = parse_gpu(gpu_arg);

    ReplayGpu g;
    ReplayFit fit;
    ReplayStep *steps;
    int n;
    char err[1024];
    if (replay_read(path, &g, &fit, &steps, &n, err, sizeof err)) die("%s", err);
    print_fit(path, &g, &fit, n);

    char what_fitted[96], what_2x[96], what_10x[96];
    snprintf(what_fitted, sizeof what_fitted, "%s, the GPU the steps ran on, replayed", g.name);
    snprintf(what_2x, sizeof what_2x, "%s, every kernel 2x faster", g.name);
    snprintf(what_10x, sizeof what_10x, "%s, every kernel 10x faster", g.name);
    Target t[] = {
        {"fitted", g, 1, what_fitted},
        {"t4", REPLAY_T4, 1, "a T4"},
        {"2x", replay_faster(&g, 2), 0.5, what_2x},
        {"10x", replay_faster(&g, 10), 0.1, what_10x},
        {"t4_c0.5", REPLAY_T4, 0.5, "a T4, each op's fixed cost halved"},
        {"t4_c2", REPLAY_T4, 2, "a T4, each op's fixed cost doubled"},
        {"", mine, 1, "your GPU"},
    };
    snprintf(t[6].label, sizeof t[6].label, "%s", mine.name);
    const int ntargets = gpu_arg ? 7 : 6;
    for (int i = 0; i < ntargets; i++) print_target(&t[i], &fit, steps, n);
    replay_steps_free(steps, n);
    return 0;
}
