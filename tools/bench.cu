/* bench: the engine's speed in every mode against the bandwidth floor, fp16 and int8.
 *
 *   make bench            (bin/bench [--model DIR] [--prompt N] [--new N] [--runs N] [--profile])
 *
 * A 200-token prompt, 64 new tokens, batch 1 and 32, modes eager, fused, graph and
 * graph_eager for fp16 weights, and, beyond the week, persistent (the whole step in one kernel):
 * where gpu_mode_refusal says it does not run here (not sm_90, the T4 switch, int8, more rows
 * than it takes), one line `bench mode=persistent ... not_run="why"` in place of its row, and
 * none in bench.tsv. Then int8 weights (fused and graph: the GEMV reads int8) and int8_unfused
 * (eager, fused and graph: each layer dequantized to fp16 first; int8's eager modes do the
 * same, so they are not run twice); persistent reads fp16 weights only. Per configuration: one
 * warm-up generate, then --runs measured ones. TTFT is the median over runs, TPOT the median
 * over every decode step of every run (wall clock, synchronized per step), range = (max - min)
 * / median. floor = the weights' bytes (fp16, or int8 with its scales and the fp16 embedding) /
 * the GPU's memory bandwidth; ratio = TPOT / floor; MBU = floor / TPOT; ratio16 = TPOT / the
 * 16-bit floor; step_gb = the weight bytes a step's kernels move (read, and unfused, written
 * and read again).
 * Writes results/bench.tsv. --profile adds, for graph and fused at batch 1 and 32 (int8: fused),
 * CUPTI's GPU time per kernel name over 16 decode steps, and over 4 batch-1 prefills: where
 * the step's and the TTFT's time go; for fused and the prefill also each model part's share of
 * the step's path (what the step waits on, which under programmatic dependent launch is less
 * than the GPU time). For persistent at batch 1 (fp16), where it runs, the same CUPTI line (one
 * kernel a step) and its in-kernel trace, which CUPTI cannot see into: per op kind, means over
 * the layers, `persist_trace op=qkv path_us= wait_us= work_us= ring_us= end_us=` (path: the op
 * before complete -> this op complete; wait: a block spinning before it may start the op; work:
 * from then to its last tile, of which ring: waiting for weights, end: its tiles' ends), and
 * `persist_trace step_us= blocks= threads= ring_stages=`; the trace's second step (the first
 * warms it up).
 * Last, the lesson's regime: `bench_layers` lines and results/bench_layers.tsv, one layer's time in
 * graph mode at batch 1, fp16 and int8, for TinyLlama's shape and Llama-2-7B's (the model gpt-fast
 * measured its 1.47x on), each the difference of a 2-layer stack and the deepest that fits in half
 * the free memory; int8_speedup beside its floor (the bytes' ratio) and a reading of why the two
 * shapes differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "gpu/gpu.h"
#include "gpu/gpu_model.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "model/theory.h"
#include "measure/trace.h"
#include "model/config.h"

/* under CUPTI: 16 decode steps (prefill = 0) or 4 prefills of the prompt (prefill = 1):
 * the busy ratio and the kernels by GPU time */
static void profile(GpuModel *m, const int *ids, int n, int B, Mode mode, int prefill) {
    const int reps = prefill ? 4 : 16;
    Trace t = {};
    int tok[64];
    gpu_prefill(m, mode, ids, n, B, NULL);
    gpu_decode_step(m, mode);
    gpu_last_tokens(m, tok);
    if (trace_start(&t) != 0) return;
    uint64_t t0 = trace_now();
    for (int i = 0; i < reps; i++)
        if (prefill) gpu_prefill(m, mode, ids, n, B, NULL);
        else gpu_decode_step(m, mode);
    gpu_last_tokens(m, tok);
    uint64_t t1 = trace_now();
    trace_flush();
    trace_stop();
    TraceWindow w = trace_window(&t, t0, t1, reps);
    printf("profile %s=%s batch=%d quant=%s kernels_per_step=%.1f gpu_us_per_step=%.1f busy_pct=%.1f\n",
           prefill ? "prefill" : "mode", prefill ? "tokens" : mode_name(mode), B, quant_name(gpu_model_quant(m)), w.kernels_per_step,
           w.gpu_ns / reps / 1e3, 100 * w.busy_ratio);
    for (int i = 0; i < w.n_names && i < 8; i++)
        printf("  %5.1f%% %7.2f us x %5.1f/step  %.70s\n", 100 * w.names[i].share, w.names[i].avg_ns / 1e3,
               (double)w.names[i].calls / reps, w.names[i].name);
    /* a graph captured before the tracer started (here: in the timed runs) carries only its
     * launch's tag, "other"; the fused step runs the same kernels, tagged (persistent's one
     * kernel holds every part: its trace splits them) */
    if (mode == MODE_FUSED || prefill) {
        printf("  path by part, us per step (of %.1f busy):", w.busy_ns / reps / 1e3);
        for (int p = 0; p < P_COUNT; p++)
            if (w.parts[p].calls) printf(" %s=%.1f", part_name((Part)p), w.parts[p].path_ns / reps / 1e3);
        printf("\n");
    }
    trace_window_free(&w);
    trace_free(&t);
}

/* Persistent mode at batch 1, where it runs: CUPTI's view (one kernel a step) and the view
 * from inside that kernel, gpu_persistent_trace's, each op kind's means over the layers. */
static void profile_persistent(GpuModel *m, const int *ids, int n) {
    const char *no = gpu_mode_refusal(m, MODE_PERSISTENT, 1);
    if (no) {
        printf("persist_trace not_run=\"%s\"\n", no);
        return;
    }
    profile(m, ids, n, 1, MODE_PERSISTENT, 0);
    PersistTrace t = {};
    gpu_prefill(m, MODE_PERSISTENT, ids, n, 1, NULL);
    for (int i = 0; i < 2; i++)
        if (!gpu_persistent_trace(m, &t)) die("bench: gpu_persistent_trace refused a batch-1 step that persistent mode runs");
    for (int op = 0; op < PT_COUNT; op++)
        printf("persist_trace op=%s path_us=%.2f wait_us=%.2f work_us=%.2f ring_us=%.2f end_us=%.2f\n", t.name[op],
               t.path_us[op], t.wait_us[op], t.work_us[op], t.ring_us[op], t.end_us[op]);
    printf("persist_trace step_us=%.1f blocks=%d threads=%d ring_stages=%d\n", t.step_us, t.blocks, t.threads,
           t.ring_stages);
}

/* One configuration by bench's protocol: a warm-up generate (and a graph's capture), then runs_n
 * measured ones; *tpot over every decode step of every run, *ttft over the runs. */
static void measure(GpuModel *m, const int *ids, int n_prompt, int B, int n_new, Mode mode, int runs_n, Stats *tpot,
                    Stats *ttft) {
    int *out = (int *)xmalloc(sizeof(int) * B * n_new), ns = 0;
    double *steps = (double *)xmalloc(sizeof(double) * runs_n * n_new), *first = (double *)xmalloc(sizeof(double) * runs_n);
    gpu_generate(m, ids, n_prompt, B, 4, mode, out, NULL, NULL);
    for (int r = 0; r < runs_n; r++) {
        GenTiming t = gpu_generate(m, ids, n_prompt, B, n_new, mode, out, NULL, NULL);
        first[r] = t.ttft_ms;
        memcpy(steps + ns, t.step_ms, sizeof(double) * t.n_steps);
        ns += t.n_steps;
    }
    *tpot = stats_of(steps, ns), *ttft = stats_of(first, runs_n);
    free(out), free(steps), free(first);
}

/* ---- the lesson's regime: int8 against fp16 on Llama-2-7B's layers ----
 * gpt-fast's 1.47x (int8 over compiled fp16) was measured on Llama-2-7B, whose matrices are 4 to
 * 8 times TinyLlama's. Here a stack of layers of either shape, synthetic weights, decodes in
 * graph mode at batch 1 in fp16 and int8, each at two depths: 2 layers, and as many as fit in
 * half the GPU's free memory (at most the model's own). The difference over the layers between
 * is one layer's time, lm_head and the embedding left out. */
typedef struct { int lo, hi; double tpot_ms[2][2], layer_us[2], layer_bytes[2]; } LayerBench;   /* [quant][depth] */

static double graph_tpot_ms(const Config *c, Quant q, int n_prompt, int n_new, int runs_n, double bw_gbs, int *impossible) {
    GpuModelOpts o = {};
    o.config = c, o.seed = 1, o.max_batch = 1, o.max_seq = n_prompt + n_new + 8, o.quiet = 1, o.quant = q;
    GpuModel *m = gpu_model_open(&o);
    int *ids = (int *)xmalloc(sizeof(int) * n_prompt);
    prompt_ids(NULL, c, n_prompt, ids);
    Stats s, f;
    measure(m, ids, n_prompt, 1, n_new, MODE_GRAPH, runs_n, &s, &f);
    const double tpot = s.median, floor_ms = gpu_model_weight_bytes(m) / bw_gbs / 1e6;
    if (tpot < floor_ms) {
        *impossible = 1;
        printf("error: bench_layers %d layers %s: TPOT %.3f ms under its floor %.3f ms: a measurement error, not a "
               "result (check that the kernels ran)\n", c->n_layers, quant_name(q), tpot, floor_ms);
    }
    gpu_model_free(m);
    free(ids);
    return tpot;
}

static LayerBench layer_bench(const char *who, const Config *shape, int n_prompt, int n_new, int runs_n, double bw_gbs,
                              FILE *tsv, int *impossible) {
    LayerBench b = {};
    Config c = *shape;
    c.n_layers = 1;
    const double one = (double)config_params(&c);
    c.n_layers = 2;
    const double layer_params = (double)config_params(&c) - one, rest = one - layer_params;
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    b.lo = 2;
    b.hi = (int)fmin(shape->n_layers, (0.5 * free_b / 2 - rest) / layer_params);
    if (b.hi < b.lo + 2) {
        printf("bench_layers model=%s not_run=\"%.1f GB free: fewer than 4 of its layers fit in half of it\"\n", who,
               free_b / 1e9);
        return b;
    }
    for (int q = 0; q < 2; q++) {
        for (int d = 0; d < 2; d++) {
            c.n_layers = d ? b.hi : b.lo;
            b.tpot_ms[q][d] = graph_tpot_ms(&c, q ? QUANT_INT8 : QUANT_FP16, n_prompt, n_new, runs_n, bw_gbs, impossible);
        }
        b.layer_us[q] = 1e3 * (b.tpot_ms[q][1] - b.tpot_ms[q][0]) / (b.hi - b.lo);
        const double rows = (double)(c.n_heads + 2 * c.n_kv_heads) * c.head_dim + 2 * c.dim + 2 * c.ffn_dim;
        b.layer_bytes[q] = q ? layer_params + 2 * c.dim + 4 * rows /* int8 linear, fp16 norms, a scale a row */
                             : 2 * layer_params;
        fprintf(tsv, "%s\t%s\t%d\t%d\t%.4f\t%.4f\t%.2f\t%.2f\n", who, q ? "int8" : "fp16", b.lo, b.hi, b.tpot_ms[q][0],
                b.tpot_ms[q][1], b.layer_us[q], b.layer_bytes[q] / bw_gbs / 1e3);
    }
    printf("bench_layers model=%-10s layers=%d..%d layer_mb_fp16=%.0f fp16_layer_us=%.1f int8_layer_us=%.1f "
           "int8_speedup=%.2f (floor %.2f)\n", who, b.lo, b.hi, b.layer_bytes[0] / 1e6, b.layer_us[0], b.layer_us[1],
           b.layer_us[0] / b.layer_us[1], b.layer_bytes[0] / b.layer_bytes[1]);
    return b;
}

/* The modes each choice of weights runs: all for fp16; int8 fused and graph (its eager modes
 * dequantize like int8_unfused's); int8_unfused all but graph_eager (eager's kernels replayed)
 * and persistent (fp16 weights only). */
static int runs(Quant q, Mode mode) {
    if (q == QUANT_FP16) return 1;
    if (mode == MODE_PERSISTENT) return 0;
    if (q == QUANT_INT8) return mode == MODE_FUSED || mode == MODE_GRAPH;
    return mode != MODE_GRAPH_EAGER;
}

static const char USAGE[] =
    "usage: bin/bench [--model DIR] [--prompt N] [--new N] [--runs N] [--profile]\n"
    "  The engine's TTFT and TPOT in every mode, batch 1 and 32, fp16 and int8, against the\n"
    "  bandwidth floor; writes results/bench.tsv.\n"
    "  --model DIR  config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n"
    "  --prompt N   prompt tokens (default 200)\n"
    "  --new N      tokens to generate (default 64)\n"
    "  --runs N     measured generates per configuration, after one warm-up (default 3);\n"
    "               runs x (new - 1) at most 4096\n"
    "  --profile    CUPTI's GPU time per kernel for graph and fused, and for the prefill\n"
    "  Last: one layer's time, fp16 and int8, for TinyLlama's shape and Llama-2-7B's (bench_layers.tsv)\n";

int main(int argc, char **argv) {
    const char *model_dir = NULL;
    int n_prompt = 200, n_new = 64, runs_n = 3, prof = 0;
    const ArgFlag flags[] = {
        ARG_MODEL(&model_dir),
        {"--prompt", ARG_INT, &n_prompt, 1, 1000000, "prompt tokens"},
        {"--new", ARG_INT, &n_new, 2, 4096, "tokens to generate"},
        {"--runs", ARG_INT, &runs_n, 1, 64, "measured generates per configuration"},
        {"--profile", ARG_FLAG, &prof, 0, 0, "CUPTI's GPU time per kernel"},
        {0},
    };
    args_parse("bench", USAGE, argc, argv, flags, NULL);
    if (runs_n * (n_new - 1) > 4096)
        die("bench: --runs %d x (--new %d - 1) = %d decode steps a configuration; give at most 4096", runs_n, n_new,
            runs_n * (n_new - 1));
    GpuFacts g;
    gpu_facts(&g);
    gpu_measure_copy(&g, (size_t)1 << 30);
    const int batches[] = {1, 32};
    GpuModelOpts o = {};
    o.model_dir = model_dir, o.seed = 1, o.max_batch = 32, o.max_seq = n_prompt + n_new + 8;
    int *ids = (int *)xmalloc(sizeof(int) * n_prompt), impossible = 0;

    char path[1024];
    snprintf(path, sizeof path, "%s/bench.tsv", results_mkdir());
    FILE *tsv = fopen(path, "w");
    if (!tsv) die("%s: cannot write it (set KIT_RESULTS to a writable folder)", path);
    fprintf(tsv, "quant\tmode\tbatch\tttft_ms\ttpot_ms\ttpot_range\tfloor_ms\tratio\tmbu_pct\tratio16\tstep_gb\tkernels\t"
                 "gemms\thost_launches\n");
    double floor16_ms = 0;
    for (int qi = 0; qi < QUANT_COUNT; qi++) {
        const Quant q = (Quant)qi;
        o.quant = q;
        GpuModel *m = gpu_model_open(&o);
        const Config *c = gpu_model_config(m);
        const double W = (double)gpu_model_weight_bytes(m), floor_ms = W / g.bw_gbs / 1e6, copy_floor_ms = W / g.copy_gbs / 1e6;
        double compute_ms;              /* the prompt's FLOPs at the peak, or reading the weights as stored once */
        ttft_floor_ms(c, n_prompt, g.fp16_tflops, g.bw_gbs, &compute_ms, NULL);
        const double ttft_floor = fmax(compute_ms, floor_ms);
        if (q == QUANT_FP16) {
            floor16_ms = floor_ms;
            printf("gpu=%s bw_gbs=%.0f copy_gbs=%.0f weight_gb=%.3f floor_ms=%.3f floor_copy_ms=%.3f\n", g.name, g.bw_gbs,
                   g.copy_gbs, W / 1e9, floor_ms, copy_floor_ms);
            prompt_ids(model_dir, c, n_prompt, ids);
        } else
            printf("quant=%s weight_gb=%.3f floor_ms=%.3f floor_copy_ms=%.3f (the 16-bit floor: %.3f)\n", quant_name(q),
                   W / 1e9, floor_ms, copy_floor_ms, floor16_ms);
        for (int bi = 0; bi < 2; bi++)
            for (int mode = 0; mode < MODE_COUNT; mode++) {
                if (!runs(q, (Mode)mode)) continue;
                const int B = batches[bi];
                const char *no = gpu_mode_refusal(m, (Mode)mode, B);
                if (no) {
                    printf("bench mode=%s batch=%d quant=%s not_run=\"%s\"\n", mode_name((Mode)mode), B, quant_name(q), no);
                    continue;
                }
                Stats s, f;
                measure(m, ids, n_prompt, B, n_new, (Mode)mode, runs_n, &s, &f);
                StepCounts k = gpu_step_counts(m, (Mode)mode);
                double ratio = s.median / floor_ms;
                printf("bench mode=%-11s batch=%-2d quant=%-12s ttft_ms=%7.3f tpot_ms=%7.3f tpot_range=%.3f ratio=%.2f "
                       "mbu_pct=%5.1f ratio16=%.2f step_gb=%.3f kernels=%d gemms=%d host_launches=%d\n",
                       mode_name((Mode)mode), B, quant_name(q), f.median, s.median, s.range_over_median, ratio, 100 / ratio,
                       s.median / floor16_ms, k.weight_bytes / 1e9, k.kernels, k.gemms, k.host_launches);
                fprintf(tsv, "%s\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.3f\t%.2f\t%.3f\t%.4f\t%d\t%d\t%d\n", quant_name(q),
                        mode_name((Mode)mode), B, f.median, s.median, s.range_over_median, floor_ms, ratio, 100 / ratio,
                        s.median / floor16_ms, k.weight_bytes / 1e9, k.kernels, k.gemms, k.host_launches);
                if (ratio < 1 || f.median < ttft_floor) {   /* faster than the memory allows: the kernels did not run */
                    impossible = 1;
                    printf("error: mode=%s batch=%d quant=%s: %s below its floor (TPOT %.3f ms against %.3f, TTFT %.3f "
                           "against %.3f): a measurement error, not a result; check that the kernels ran (a build for "
                           "another GPU runs nothing: make clean && make) and that the tokens are not all 0\n",
                           mode_name((Mode)mode), B, quant_name(q), ratio < 1 ? "TPOT is" : "TTFT is", s.median, floor_ms,
                           f.median, ttft_floor);
                }
            }
        if (prof && q != QUANT_INT8_UNFUSED) {
            for (int bi = 0; bi < 2; bi++) {
                if (q == QUANT_FP16) profile(m, ids, n_prompt, batches[bi], MODE_GRAPH, 0);
                profile(m, ids, n_prompt, batches[bi], MODE_FUSED, 0);
            }
            if (q == QUANT_FP16) {
                profile(m, ids, n_prompt, 1, MODE_FUSED, 1);
                profile_persistent(m, ids, n_prompt);
            }
        }
        gpu_model_free(m);
    }
    fclose(tsv);
    printf("wrote %s\n", path);

    snprintf(path, sizeof path, "%s/bench_layers.tsv", results_mkdir());
    if (!(tsv = fopen(path, "w"))) die("%s: cannot write it (set KIT_RESULTS to a writable folder)", path);
    fprintf(tsv, "model\tquant\tlayers_lo\tlayers_hi\ttpot_lo_ms\ttpot_hi_ms\tlayer_us\tlayer_floor_us\n");
    Config tl, l7;
    config_tinyllama(&tl);
    config_llama2_7b(&l7);
    const LayerBench bt = layer_bench("TinyLlama", &tl, n_prompt, n_new, runs_n, g.bw_gbs, tsv, &impossible);
    const LayerBench b7 = layer_bench("Llama-2-7B", &l7, n_prompt, n_new, runs_n, g.bw_gbs, tsv, &impossible);
    fclose(tsv);
    if (bt.hi && b7.hi)
        printf("reading: int8 makes a Llama-2-7B layer %.2fx faster (the lesson's whole compiled step: 1.47x) and a "
               "TinyLlama layer %.2fx: a 7B layer's GEMVs read %.0f MB in fp16 against %.0f, long enough that their "
               "bytes, which int8 halves, outweigh what each kernel pays whatever its size, which it does not (day09's "
               "GEMV curve, results/gemv_curve.png)\n", b7.layer_us[0] / b7.layer_us[1], bt.layer_us[0] / bt.layer_us[1],
               b7.layer_bytes[0] / 1e6, bt.layer_bytes[0] / 1e6);
    printf("wrote %s\n", path);
    free(ids);
    return impossible;
}
