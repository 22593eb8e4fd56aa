/* bench: the engine's speed in every mode against the bandwidth floor.
 *
 *   make bench            (bin/bench [--model DIR] [--prompt N] [--new N] [--runs N] [--profile])
 *
 * A 200-token prompt, 64 new tokens, batch 1 and 32, modes eager, fused, graph and
 * graph_eager. Per configuration: one warm-up generate, then --runs measured ones. TTFT is
 * the median over runs, TPOT the median over every decode step of every run (wall clock,
 * synchronized per step), range = (max - min) / median. floor = weight bytes / the GPU's
 * memory bandwidth; ratio = TPOT / floor; MBU = floor / TPOT. Writes results/bench.tsv.
 * --profile adds, for graph and fused at batch 1 and 32, CUPTI's GPU time per kernel name
 * over 16 decode steps, and over 4 batch-1 prefills: where the step's and the TTFT's time go;
 * for fused and the prefill also each model part's share of the step's path (what the step
 * waits on, which under programmatic dependent launch is less than the GPU time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "gpu_model.h"
#include "prompt.h"
#include "rows.h"
#include "stats.h"
#include "theory.h"
#include "trace.h"

/* under CUPTI: 16 decode steps (prefill = 0) or 4 prefills of the prompt (prefill = 1):
 * the busy ratio and the kernels by GPU time */
static void profile(GpuModel *m, const int *ids, int n, int B, Mode mode, int prefill) {
    const int reps = prefill ? 4 : 16;
    Trace t = {};
    int tok[64];
    gpu_prefill(m, ids, n, B, NULL);
    gpu_decode_step(m, mode);
    gpu_last_tokens(m, tok);
    if (trace_start(&t) != 0) return;
    uint64_t t0 = trace_now();
    for (int i = 0; i < reps; i++)
        if (prefill) gpu_prefill(m, ids, n, B, NULL);
        else gpu_decode_step(m, mode);
    gpu_last_tokens(m, tok);
    uint64_t t1 = trace_now();
    trace_flush();
    trace_stop();
    TraceWindow w = trace_window(&t, t0, t1, reps);
    printf("profile %s=%s batch=%d kernels_per_step=%.1f gpu_us_per_step=%.1f busy_pct=%.1f\n",
           prefill ? "prefill" : "mode", prefill ? "tokens" : mode_name(mode), B, w.kernels_per_step,
           w.gpu_ns / reps / 1e3, 100 * w.busy_ratio);
    for (int i = 0; i < w.n_names && i < 8; i++)
        printf("  %5.1f%% %7.2f us x %5.1f/step  %.70s\n", 100 * w.names[i].share, w.names[i].avg_ns / 1e3,
               (double)w.names[i].calls / reps, w.names[i].name);
    /* a graph captured before the tracer started (here: in the timed runs) carries only its
     * launch's tag, "other"; the fused step runs the same kernels, tagged */
    if (mode != MODE_GRAPH || prefill) {
        printf("  path by part, us per step (of %.1f busy):", w.busy_ns / reps / 1e3);
        for (int p = 0; p < P_COUNT; p++)
            if (w.parts[p].calls) printf(" %s=%.1f", part_name((Part)p), w.parts[p].path_ns / reps / 1e3);
        printf("\n");
    }
    trace_window_free(&w);
    trace_free(&t);
}

int main(int argc, char **argv) {
    const char *model_dir = NULL;
    int n_prompt = 200, n_new = 64, runs = 3, prof = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--model")) model_dir = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--prompt")) n_prompt = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--new")) n_new = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--runs")) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--profile")) prof = 1;
        else die("usage: bin/bench [--model DIR] [--prompt N] [--new N] [--runs N] [--profile]");
    }
    if (n_prompt < 1 || n_new < 2 || runs < 1 || runs > 64 || runs * (n_new - 1) > 4096)
        die("bench: --prompt >= 1, --new >= 2, --runs 1..64 and runs x (new - 1) <= 4096");
    GpuFacts g;
    gpu_facts(&g);
    gpu_measure_copy(&g, (size_t)1 << 30);
    const int batches[] = {1, 32};
    GpuModelOpts o = {};
    o.model_dir = model_dir, o.seed = 1, o.max_batch = 32, o.max_seq = n_prompt + n_new + 8;
    GpuModel *m = gpu_model_open(&o);
    double W = (double)gpu_model_weight_bytes(m), floor_ms = W / g.bw_gbs / 1e6, copy_floor_ms = W / g.copy_gbs / 1e6;
    double ttft_floor = ttft_floor_ms(gpu_model_config(m), n_prompt, g.fp16_tflops, g.bw_gbs, NULL, NULL);
    int impossible = 0;
    printf("gpu=%s bw_gbs=%.0f copy_gbs=%.0f weight_gb=%.3f floor_ms=%.3f floor_copy_ms=%.3f\n", g.name, g.bw_gbs,
           g.copy_gbs, W / 1e9, floor_ms, copy_floor_ms);
    int *ids = (int *)xmalloc(sizeof(int) * n_prompt), *out = (int *)xmalloc(sizeof(int) * 32 * n_new);
    prompt_ids(model_dir, gpu_model_config(m), n_prompt, ids);
    double *steps = (double *)xmalloc(sizeof(double) * runs * n_new), ttft[64];

    char path[1024];
    snprintf(path, sizeof path, "%s/bench.tsv", results_mkdir());
    FILE *tsv = fopen(path, "w");
    if (!tsv) die("%s: cannot write it (set KIT_RESULTS to a writable folder)", path);
    fprintf(tsv, "mode\tbatch\tttft_ms\ttpot_ms\ttpot_range\tfloor_ms\tratio\tmbu_pct\tkernels\tgemms\thost_launches\n");
    for (int bi = 0; bi < 2; bi++)
        for (int mode = 0; mode < MODE_COUNT; mode++) {
            int B = batches[bi], ns = 0;
            gpu_generate(m, ids, n_prompt, B, 4, (Mode)mode, out, NULL, NULL);      /* warm-up */
            for (int r = 0; r < runs; r++) {
                GenTiming t = gpu_generate(m, ids, n_prompt, B, n_new, (Mode)mode, out, NULL, NULL);
                ttft[r] = t.ttft_ms;
                memcpy(steps + ns, t.step_ms, sizeof(double) * t.n_steps);
                ns += t.n_steps;
            }
            Stats s = stats_of(steps, ns), f = stats_of(ttft, runs);
            StepCounts k = gpu_step_counts(m, (Mode)mode);
            double ratio = s.median / floor_ms;
            printf("bench mode=%-11s batch=%-2d ttft_ms=%7.3f tpot_ms=%7.3f tpot_range=%.3f ratio=%.2f mbu_pct=%5.1f "
                   "kernels=%d gemms=%d host_launches=%d\n", mode_name((Mode)mode), B, f.median, s.median,
                   s.range_over_median, ratio, 100 / ratio, k.kernels, k.gemms, k.host_launches);
            fprintf(tsv, "%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.3f\t%.2f\t%d\t%d\t%d\n", mode_name((Mode)mode), B, f.median,
                    s.median, s.range_over_median, floor_ms, ratio, 100 / ratio, k.kernels, k.gemms, k.host_launches);
            if (ratio < 1 || f.median < ttft_floor) {   /* faster than the memory allows: the kernels did not run */
                impossible = 1;
                printf("error: mode=%s batch=%d: %s below its floor (TPOT %.3f ms against %.3f, TTFT %.3f against %.3f): "
                       "a measurement error, not a result; check that the kernels ran (a build for another GPU runs "
                       "nothing: make clean && make) and that the tokens are not all 0\n", mode_name((Mode)mode), B,
                       ratio < 1 ? "TPOT is" : "TTFT is", s.median, floor_ms, f.median, ttft_floor);
            }
        }
    fclose(tsv);
    printf("wrote %s\n", path);
    if (prof) {
        for (int bi = 0; bi < 2; bi++) {
            profile(m, ids, n_prompt, batches[bi], MODE_GRAPH, 0);
            profile(m, ids, n_prompt, batches[bi], MODE_FUSED, 0);
        }
        profile(m, ids, n_prompt, 1, MODE_FUSED, 1);
    }
    free(ids), free(out), free(steps);
    gpu_model_free(m);
    return impossible;
}
