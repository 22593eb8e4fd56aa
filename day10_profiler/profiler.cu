/* Day 10 · What is the GPU running?
 *
 * Day 9 measured how far TPOT sits above the bandwidth floor; the profiler says what that time
 * is made of. The lesson uses torch.profiler; this program goes one layer down, to CUPTI (the
 * NVIDIA interface torch.profiler sits on): every kernel of a decode step, its name, its GPU
 * time and its model part (each launch is tagged in gpu/launch.h, so the part is not a guess).
 *
 *   schedule(wait=1, warmup=2, active=3)  warm up, then a window of exactly 3 synchronized
 *                                         decode steps between two trace_now() marks
 *   prof.step()                           the marks: without them nothing is a step (mistake #9)
 *   key_averages().table(...)             profile_table_print(): a row per kernel name, calls
 *                                         and GPU time per step, share, the GEMMs' GB/s
 *   # of Calls / active steps             the GEMM calls CUPTI counted in the window / 3; the
 *                                         config says 22 x 7 (q k v o gate up down) + lm_head = 155
 *   busy                                  GPU time per step (kernel intervals merged) / TPOT timed
 *                                         before the tracer started, as day11 defines it
 *
 * By default the step runs in the lesson's regime: the eager step (PyTorch eager's kernels for
 * transformers' Llama, one for one) with an emulated dispatcher before each launch
 * (gpu/dispatch.h: host waits drawn from a real PyTorch trace, default median 14 us;
 * --dispatch-us 0: the kit's bare C launches). The kernels and their table do not depend on
 * the dispatcher; TPOT and busy do.
 *
 * Build and run:   make day10      (or: make bin/day10_profiler && bin/day10_profiler)
 *                  bin/day10_profiler [--model DIR] [--mode eager|fused|graph|graph_eager]
 *                                     [--batch N] [--dispatch-us N] [--dispatch-from TRACE] [--verbose]
 * It prints the GPU in one line, then the rows below in their order: the counts, the table's top
 * five, the top three kernels and families with their parts, the kernels of attention and
 * RMSNorm, launch_api_us, the fused step's line, busy_traced beside busy; on stderr, a line per
 * phase. --verbose adds every other row and line (the table's fifteen, every part and family,
 * the dispatcher, ops against kernels); all the rows go to results/rows.tsv either way.
 *
 * What to expect on a T4 (the lesson's figures are HF eager's; the reference H200's are in
 * answers/reference/README.md):
 *   kernels_per_step      the lesson: 300-400 kernels; the kit's eager step makes 903 launches,
 *                         and cuBLAS may add kernels of its own (a split-K reduce)
 *   gemms_per_step        155 and gemms_check=ok; gemm_calls_window, the calls counted over the
 *                         3 steps, is torch's # of Calls (the quiz's 465 = 3 x 155)
 *   top1..3_share         GEMM kernels first (the lesson's s1688gemm, gemv2T, cutlass); the
 *                         lesson's shares: linear layers 60-80%, elementwise 10-20%, attention
 *                         5-10%; family1..3 print the kit's beside them
 *   part_ms_norm          RMSNorm as eager runs it, eight small kernels (the lesson: 2-4%)
 *   gemm_ms_per_step      the lesson: a little above the floor, 6.9 ms (2.2 GB / 320 GB/s,
 *                         datasheet); gemm_bw_eff = floor / it. All the step's kernels, day11's
 *                         forecast: `forecast_t4_gpu_ms_per_step_eager_b1_d14` 9.2 ms (H200 runs)
 *   gemm_path_ms_fused    the fused step's linear layers: what that step waits on (day12's int8
 *                         prediction halves it)
 *   busy                  the lesson: 50-65%; day11's forecast of the kit's step,
 *                         `forecast_t4_busy_eager_b1_d14` 34-36% (H200 runs)
 *   profiler_overhead_pct tpot_ms_traced against tpot_ms_untraced (the lesson: a ms or two a
 *                         step): shares from the profiler, times from the timer (mistake #11)
 * It proves acceptance question 4 (the three top kernels and their model parts), self-tests
 * 3 (155 linear layers a step, counted) and 5 (attention_kernels: no flash kernel before
 * sm_80; norm_kernels: no RMSNorm kernel in eager), and mistakes #9 to #12 (launch_api_us is
 * CPU time, not GPU time; read busy before the ranking).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "measure/timer.h"
#include "gpu/gpu.h"
#include "gpu/dispatch.h"
#include "gpu/gpu_model.h"
#include "gpu/launch.h"
#include "measure/profile_table.h"
#include "model/eager_ops.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "model/theory.h"
#include "measure/trace.h"

#define DAY "day10"
enum { STEPS = 3, WARMUP = 3, PROMPT = 32, TOP = 5, TABLE_ROWS = 15, TPOT_ITERS = 10, PHASES = 4 };
/* The answers the default prints, in the essay's order (--verbose: every row). */
static const char *const HEADLINES[] = {"kernels_per_step", "gemms_per_step", "part_ms_norm", "gemm_ms_per_step",
                                        "gemm_bw_eff", "gemm_path_ms_fused", "busy", "tpot_ms_traced",
                                        "tpot_ms_untraced", "profiler_overhead_pct", NULL};

typedef struct { const char *model_dir; Mode mode; int batch; double dispatch_us; int verbose; } Args;

static const char USAGE[] =
    "usage: day10_profiler [--model DIR] [--mode eager|fused|graph|graph_eager] [--batch N] [--dispatch-us N]\n"
    "                      [--dispatch-from TRACE] [--verbose]\n"
    "  Traces 3 decode steps with CUPTI and prints the profiler's table: every kernel, its\n"
    "  model part, calls and GPU time per step; GEMM time against the floor; the tracer's cost.\n"
    "  --model DIR  config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n"
    "  --mode M     how the step runs (default eager, the lesson's HF eager)\n"
    "  --batch N    rows decoded together (default 1)\n"
    "  --dispatch-us N  the emulated dispatcher's median host busy-wait before each launch (default\n"
    "               14 us, the median of a real PyTorch trace's host time per launch: the HF eager\n"
    "               regime; 0 = the kit's bare C launches)\n"
    "  --dispatch-from TRACE  draw the dispatcher's waits from your torch.profiler trace (its median, or\n"
    "               --dispatch-us's)\n"
    "  --verbose    every row and line, not only the answers\n";

static Args parse_args(int argc, char **argv) {
    Args a = {NULL, MODE_EAGER, 1, NAN, 0};   /* NAN: --dispatch-us not given */
    const char *dispatch_from = NULL;
    int mode = a.mode;
    const ArgFlag flags[] = {
        ARG_MODEL(&a.model_dir),
        {"--mode", ARG_CHOICE, &mode, 0, 0, "eager|fused|graph|graph_eager|persistent"},   /* Mode's order */
        {"--batch", ARG_INT, &a.batch, 1, 256, "rows decoded together"},
        ARG_DISPATCH_US(&a.dispatch_us),
        ARG_DISPATCH_FROM(&dispatch_from),
        ARG_VERBOSE(&a.verbose),
        {0},
    };
    args_parse(DAY, USAGE, argc, argv, flags, NULL);
    a.dispatch_us = dispatch_setup(DAY, a.dispatch_us, dispatch_from, DISPATCH_US_DEFAULT);
    a.mode = (Mode)mode;
    return a;
}

typedef struct { GpuModel *m; Mode mode; } Step;   /* g_launch.dispatch_us is set for the whole run */
static void decode_step(void *ctx) { Step *s = (Step *)ctx; gpu_decode_step(s->m, s->mode); }
static void synced_step(Step *s) {
    decode_step(s);
    CUDA_CHECK(cudaStreamSynchronize(gpu_model_stream(s->m)));
}

/* The linear layers per transformer layer in this mode: eager runs q k v o gate up down
 * as 7 GEMMs (HF's nn.Linear modules); fused runs qkv o gate_up down. */
static int linears_per_layer(Mode m) { return m == MODE_EAGER || m == MODE_GRAPH_EAGER ? 7 : 4; }

/* The short names of the rows whose calls belonged to `part`, comma-separated. */
static void names_of_part(const ProfRow *rows, int n, Part part, char *out, size_t cap) {
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n && len < cap; i++)
        if (rows[i].parts & (1u << part)) {
            char name[48];
            kernel_short_name(rows[i].nt->name, name, sizeof name);
            len += snprintf(out + len, cap - len, "%s%s", len ? "," : "", name);
        }
    if (!len) snprintf(out, cap, "none");
}

int main(int argc, char **argv) {
    Args a = parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rows_quiet(!a.verbose);
    rows_headlines(HEADLINES);
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_facts_print(&g, a.verbose);

    /* NVTX (the op ranges) binds to CUPTI at the process's first NVTX call, the model's
     * first launch: name CUPTI now, start the trace once the untraced step is timed. */
    trace_bind_nvtx();

    GpuModelOpts mo = {.model_dir = a.model_dir, .seed = 1, .max_batch = a.batch, .max_seq = PROMPT + 64, .quiet = 1};
    GpuModel *m = gpu_model_open(&mo);
    const Config *c = gpu_model_config(m);
    if (a.verbose) config_print(c);
    if (!a.model_dir)
        detail("weights=synthetic (TinyLlama's shape, seeded): every kernel, count and time is real, the text is not\n");
    double W = weight_bytes(c), floor_ms = floor_tpot_ms(W, g.bw_gbs);
    detail("mode=%s batch=%d weight_gb=%.3f floor_tpot_ms=%.3f (weights / %.0f GB/s)\n", mode_name(a.mode),
           a.batch, W / 1e9, floor_ms, g.bw_gbs);
    if (a.mode == MODE_EAGER || a.mode == MODE_GRAPH_EAGER)
        detail("eager_mirrors=\"%s\" (PyTorch eager's kernels for transformers' Llama, one for one: "
               "common/model/eager_ops.c)\n", EAGER_MIRRORS);

    /* ---- 1. Warm up, then the window: exactly STEPS decode steps, each synchronized ---- */
    int ids[PROMPT];
    prompt_ids(a.model_dir, c, PROMPT, ids);
    gpu_prefill(m, a.mode, ids, PROMPT, a.batch, NULL);
    Step st = {m, a.mode};
    report_dispatch(DAY, a.dispatch_us);
    g_launch.dispatch_us = a.dispatch_us;
    /* The step as it runs, before any tracer: what the busy ratio divides by (section 5). */
    BenchOpts bo = {};
    bo.warmup = 2;
    bo.iters = TPOT_ITERS;
    progress(1, PHASES, "the step untraced");
    const BenchResult off = bench(decode_step, &st, bo);
    Trace tr = {0};
    int traced = trace_start(&tr) == 0;
    if (!traced) printf("trace=off: no CUPTI trace; counting from the launch path only\n");
    for (int i = 0; i < WARMUP; i++) {                   /* schedule's wait + warmup */
        if (i == WARMUP - 1) {                           /* the load and the warm-up leave; */
            trace_flush();                               /* CUPTI's next buffer is paid for */
            trace_clear(&tr);                            /* here, not inside the window */
        }
        synced_step(&st);
    }

    progress(2, PHASES, "the traced window");
    launch_reset();
    uint64_t t0 = traced ? trace_now() : 0;
    for (int i = 0; i < STEPS; i++) synced_step(&st);    /* active=3, prof.step() = the marks */
    uint64_t t1 = traced ? trace_now() : 0;
    trace_flush();
    long long host_ops = g_launch.ops, host_gemms = g_launch.gemms;
    StepCounts sc = gpu_step_counts(m, a.mode);

    /* ---- 2. Counting: kernels, GEMM calls, ops ----------------------------------------- */
    detail("\n== counting: what runs in one decode step (%d steps in the window) ==\n", STEPS);
    int per_layer = linears_per_layer(a.mode);
    int expected = c->n_layers * per_layer + 1;
    char note[256];
    snprintf(note, sizeof note, "%d layers x %d linear + lm_head (%s, batch %d)", c->n_layers, per_layer,
             mode_name(a.mode), a.batch);
    TraceWindow w = {0};
    double kernels, gemms, ops;
    if (traced) {
        w = trace_window(&tr, t0, t1, STEPS);
        if (w.kernels == 0)
            die("the trace window holds no kernels: the records were not flushed (trace_flush) or the "
                "window marks miss the steps (the lesson's mistake #9, a forgotten prof.step())");
        if (tr.dropped) printf("warning: CUPTI dropped %llu records; the counts below are short\n",
                               (unsigned long long)tr.dropped);
        kernels = w.kernels_per_step;
        gemms = w.gemms_per_step;
        ops = w.nvtx_ops_per_step;
    } else {
        kernels = sc.kernels;
        gemms = sc.gemms;
        ops = (double)host_ops / STEPS;
    }
    report(DAY, "kernels_per_step", NAN, kernels, "count",
           traced ? "kernels CUPTI saw, per step" : "the launch path's count (no trace)");
    report(DAY, "gemms_per_step", expected, gemms, "count", note);
    if (fabs(gemms - expected) < 1e-9) printf("gemms_check=ok (%d = %d x %d + 1, from the config)\n", expected,
                                              c->n_layers, per_layer);
    else printf("gemms_check=MISMATCH measured %.2f, the config says %d = %d x %d + 1\n", gemms, expected,
                c->n_layers, per_layer);
    printf("gemm_calls_window=%lld (counted over the %d steps%s: torch's # of Calls before dividing by the active "
           "steps)\n", traced ? (long long)w.gemms : host_gemms, STEPS, traced ? ", from CUPTI" : ", by the launch path");
    detail("launch_path_ops_per_step=%.1f launch_path_gemms_per_step=%.1f launch_path_kernels_per_step=%d "
           "host_launches_per_step=%d\n", (double)host_ops / STEPS, (double)host_gemms / STEPS, sc.kernels,
           sc.host_launches);
    if (traced) {
        report(DAY, "nvtx_ops_per_step", NAN, ops, "count", "NVTX op ranges per step (the CPU-side ops)");
        if (ops > 0)
            detail("op_vs_kernel: %.1f ops -> %.1f kernels per step (%.2f kernels per op): an op is the CPU's "
                   "call, a kernel the GPU's work; one op may launch 0, 1 or more kernels\n",
                   ops, kernels, kernels / ops);
        else
            detail("op_vs_kernel: no NVTX ranges in the trace (NVTX did not bind to CUPTI), %.1f launch-path ops "
                   "-> %.1f kernels per step\n", (double)host_ops / STEPS, kernels);
    }
    if (!traced) {
        printf("Without a trace there is no per-kernel GPU time: the table, the GEMM time and the busy ratio "
               "need CUPTI (run where no other profiler is attached).\n");
        report_floored(DAY, "tpot_ms_untraced", floor_ms, off.s.median, "ms",
               "synced wall clock, median of 10, before the tracer started");
        gpu_model_free(m);
        return rows_exit_code();
    }

    /* ---- 3. The table: key_averages, kernel rows, top 5 mapped to model parts ---------- */
    detail("\n== the profiler's table (kernel rows: GPU time only, the Self CUDA column) ==\n");
    double pb[P_COUNT];
    linear_part_bytes(c, pb);
    ProfRow *rows = profile_rows(&tr, &w, t0, t1, pb);
    profile_table_print(stdout, &w, rows, a.verbose ? TABLE_ROWS : TOP);
    for (int i = 0; i < TOP && i < w.n_names; i++) {
        char name[64], parts[160], key[32];
        kernel_short_name(rows[i].nt->name, name, sizeof name);
        parts_label(rows[i].parts, parts, sizeof parts);
        if (i < 3 || a.verbose)
            printf("top%d=%s part=%s share=%.1f%% calls_per_step=%.1f\n", i + 1, name, parts, 100 * rows[i].nt->share,
                   (double)rows[i].nt->calls / STEPS);
        if (i < 3) {
            snprintf(key, sizeof key, "top%d_share", i + 1);
            snprintf(note, sizeof note, "%s -> %s", name, parts);
            report(DAY, key, NAN, 100 * rows[i].nt->share, "%", note);
        }
    }

    /* GPU time per model part, largest first; then the lesson's families of kernels. */
    detail("\n== GPU time per model part (per step) ==\n");
    int order[P_COUNT], np = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (w.parts[p].calls) order[np++] = p;
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && w.parts[order[j]].total_ns > w.parts[order[j - 1]].total_ns; j--) {
            int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
        }
    double gemm_ns = 0;
    for (int i = 0; i < np; i++) {
        const TPartTime *pt = &w.parts[order[i]];
        char key[64];
        snprintf(key, sizeof key, "part_ms_%s", part_name((Part)order[i]));
        snprintf(note, sizeof note, "%.1f kernels per step, %.1f%% of GPU time", (double)pt->calls / STEPS,
                 100 * pt->share);
        report(DAY, key, NAN, pt->total_ns / 1e6 / STEPS, "ms", note);
        if (part_is_gemm((Part)order[i])) gemm_ns += pt->total_ns;
    }
    /* The lesson's table is by family: each family's share of the GPU time and its kernels per
     * step, ranked, with the family's largest kernel (by name) as the detail. */
    double fam[F_COUNT] = {0}, fam_kernels[F_COUNT] = {0};
    for (int p = 0; p < P_COUNT; p++) {
        fam[part_family((Part)p)] += w.parts[p].share;
        fam_kernels[part_family((Part)p)] += (double)w.parts[p].calls / STEPS;
    }
    static const char *const band[F_COUNT] = {"60-80", "10-20", "5-10", "-", "-"};   /* the lesson's */
    int forder[F_COUNT];
    for (int f = 0; f < F_COUNT; f++) forder[f] = f;
    for (int i = 1; i < F_COUNT; i++)
        for (int j = i; j > 0 && fam[forder[j]] > fam[forder[j - 1]]; j--) {
            int x = forder[j]; forder[j] = forder[j - 1]; forder[j - 1] = x;
        }
    detail("families (the lesson's table: linear 60-80%%, elementwise 10-20%%, attention 5-10%%):\n");
    for (int i = 0; i < F_COUNT; i++) {
        const int f = forder[i];
        char top[64] = "-", key[64];
        for (int k = 0; k < w.n_names; k++)   /* rows are by GPU time: the first of the family is its top */
            if (rows[k].parts && part_family((Part)__builtin_ctz(rows[k].parts)) == f) {   /* its first part's */
                kernel_short_name(rows[k].nt->name, top, sizeof top);
                break;
            }
        if (i < 3 || a.verbose)
            printf("family%d=%s share=%.1f%% kernels_per_step=%.1f top_kernel=%s (lesson: %s%%)\n", i + 1,
                   family_name((Family)f), 100 * fam[f], fam_kernels[f], top, band[f]);
        snprintf(key, sizeof key, "family_share_%s", family_name((Family)f));
        snprintf(note, sizeof note, "rank %d, %.1f kernels per step; top kernel %s", i + 1, fam_kernels[f], top);
        report(DAY, key, NAN, 100 * fam[f], "%", note);
        if (i < 3) {
            snprintf(key, sizeof key, "family_top%d_share", i + 1);
            snprintf(note, sizeof note, "%s: %.1f kernels per step; top kernel %s", family_name((Family)f),
                     fam_kernels[f], top);
            report(DAY, key, NAN, 100 * fam[f], "%", note);
        }
    }

    /* Self-test 5: what attention and RMSNorm run as. */
    char attn[256], norm[256];
    names_of_part(rows, w.n_names, P_ATTN, attn, sizeof attn);
    names_of_part(rows, w.n_names, P_NORM, norm, sizeof norm);
    printf("attention_kernels=%s (the lesson's T4 shows fmha_cutlassF or bmm+softmax: flash-attention needs "
           "sm_80+)\n", attn);
    printf("norm_kernels=%s: %.1f kernels per RMSNorm, %d norms per step\n", norm,
           w.parts[P_NORM].calls / (double)STEPS / (2 * c->n_layers + 1), 2 * c->n_layers + 1);

    /* ---- 4. The GEMMs against the floor ------------------------------------------------- */
    detail("\n== the linear layers against the bandwidth floor ==\n");
    double gemm_ms = gemm_ns / 1e6 / STEPS, linear_bytes = pb[P_LM_HEAD];
    for (int p = P_Q; p <= P_DOWN; p++)
        if (part_is_gemm((Part)p) && p != P_QKV && p != P_GATE_UP) linear_bytes += c->n_layers * pb[p];
    snprintf(note, sizeof note, "GEMM GPU time per step; theory = floor TPOT, all %.2f GB of weights", W / 1e9);
    report(DAY, "gemm_ms_per_step", floor_ms, gemm_ms, "ms", note);
    report(DAY, "gemm_bw_eff", 100, 100 * floor_ms / gemm_ms, "%", "floor TPOT / GEMM time per step");
    detail("gemm_gbs=%.0f (the %.3f GB of linear weights a step reads / GEMM time; datasheet %.0f GB/s)\n",
           linear_bytes / (gemm_ms * 1e6), linear_bytes / 1e9, g.bw_gbs);
    detail("gemm_share=%.1f%% of the step's kernel time; the rest is %.3f ms of small kernels\n",
           100 * gemm_ns / w.gpu_ns, (w.gpu_ns - gemm_ns) / 1e6 / STEPS);
    printf("launch_api_us=%.2f median per launch call: CPU time, not GPU time. GPU time is only in the kernel "
           "rows (mistake #10)\n", w.launch_api_ns.median / 1e3);

    /* ---- 4b. The fused step's linear layers: what the step waits on ------------------- */
    /* The fused step (the one graph mode replays) runs its own GEMVs. On sm_90 each kernel
     * starts before the one before it ends and waits (programmatic dependent launch), so GPU
     * times add up to more than the step; the path (trace.h) charges a kernel only from the
     * previous kernel's end: what the step waits on. day12's int8 prediction halves it. */
    progress(3, PHASES, "the fused step traced");
    detail("\n== the fused step's linear layers: what the step waits on ==\n");
    Step fs = {m, MODE_FUSED};
    g_launch.dispatch_us = 0;                            /* the kernels' own path: bare C launches */
    for (int i = 0; i < WARMUP; i++) synced_step(&fs);
    trace_flush();
    uint64_t f0 = trace_now();
    for (int i = 0; i < STEPS; i++) synced_step(&fs);
    uint64_t f1 = trace_now();
    trace_flush();
    TraceWindow wf = trace_window(&tr, f0, f1, STEPS);
    double fpath = 0, fgpu = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (part_is_gemm((Part)p)) fpath += wf.parts[p].path_ns, fgpu += wf.parts[p].total_ns;
    snprintf(note, sizeof note, "fused step, batch %d: the linear layers' part of the step's path (GPU time %.3f ms)",
             a.batch, fgpu / 1e6 / STEPS);
    report(DAY, "gemm_path_ms_fused", floor_ms, fpath / 1e6 / STEPS, "ms", note);
    printf("fused_step: busy %.3f ms per step, the linear layers %.1f%% of it (their GPU time, %.3f ms, counts "
           "the waits of overlapping kernels)\n", wf.busy_ns / 1e6 / STEPS, 100 * fpath / wf.busy_ns,
           fgpu / 1e6 / STEPS);
    trace_window_free(&wf);
    g_launch.dispatch_us = a.dispatch_us;

    /* ---- 5. The busy ratio of the step as it runs: the trace's GPU time (kernel intervals
     * merged; the tracer slows the host, not the kernels) over the untraced TPOT. The span of
     * the traced window would divide by the tracer's own slowness (day11 shows both). */
    snprintf(note, sizeof note, "%s, batch %d, dispatch median %.0f us: GPU time per step (trace) / untraced TPOT",
             mode_name(a.mode), a.batch, a.dispatch_us);
    report(DAY, "busy", NAN, 100 * w.busy_ns / 1e6 / STEPS / off.s.median, "%", note);
    printf("busy_traced=%.1f%% (the same trace's union / span: what its timeline shows, the tracer's slowness "
           "included). Look at the busy ratio before the ranking (mistake #12): day11 measures the gaps.\n",
           100 * w.busy_ratio);

    /* ---- 6. What the profiler costs: TPOT traced vs untraced, the same synced clock ---- */
    progress(4, PHASES, "the step traced");
    detail("\n== the profiler's own cost ==\n");
    BenchResult on = bench(decode_step, &st, bo);
    trace_stop();
    report_floored(DAY, "tpot_ms_traced", floor_ms, on.s.median, "ms", "synced wall clock, median of 10, tracer on");
    report_floored(DAY, "tpot_ms_untraced", floor_ms, off.s.median, "ms",
                   "synced wall clock, median of 10, before the tracer started");
    report(DAY, "profiler_overhead_pct", NAN, 100 * (on.s.median / off.s.median - 1), "%",
           "traced TPOT / untraced TPOT - 1: read the profiler for shares, the timer for times");
    detail("tracer_us_per_launch=%.2f (the traced step's extra time / %d host launches)\n",
           (on.s.median - off.s.median) * 1e3 / sc.host_launches, sc.host_launches);

    free(rows);
    trace_window_free(&w);
    trace_free(&tr);
    gpu_model_free(m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
